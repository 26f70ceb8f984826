import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { DeliveryAClient } from './delivery-a-client.ts';
import { startDeliveryASimulator, type DeliveryASimulator } from './delivery-a-simulator.ts';
import { providerError } from '../shared/provider-test-support.ts';

let sim: DeliveryASimulator;
let client: DeliveryAClient;

beforeAll(() => {
  sim = startDeliveryASimulator({ apiToken: 'tok-1' });
  sim.addStore('store-1', 'Central');
  client = new DeliveryAClient({ baseUrl: sim.url, apiToken: 'tok-1' });
});
afterAll(() => sim.stop());


describe('delivery-a client against the simulator over HTTP', () => {
  test('store, enable, menu, availability, site status, disable', async () => {
    expect(await client.getStore('store-1')).toEqual({ id: 'store-1', name: 'Central', integration_enabled: false, integrator_store_id: null, site_status: 'CLOSED' });
    // Menu before enabling: 409.
    expect(await providerError(client.pushMenu('store-1', []))).toMatchObject({ kind: 'http', status: 409, code: 'integration_disabled' });
    // Without the store owner's link code the integration stays off.
    expect(await providerError(client.enableIntegration('store-1', 'loc-1', 'LINK-WRONG'))).toMatchObject({ kind: 'http', status: 403, code: 'invalid_link_code' });
    expect(sim.stores.get('store-1')).toMatchObject({ integrationEnabled: false, integratorRef: null });
    expect((await client.enableIntegration('store-1', 'loc-1', sim.stores.get('store-1')!.linkCode)).integrator_store_id).toBe('loc-1');
    expect(await client.pushMenu('store-1', [{ id: 'i1', name: 'Fries', price: 350, available: true }, { id: 'i2', name: 'Cola', price: 250, available: true }])).toBe(2);
    expect(await client.pushAvailability('store-1', [{ id: 'i2', available: false }, { id: 'gone', available: true }])).toBe(1);
    expect(sim.stores.get('store-1')!.menu!.items.find((i) => i.id === 'i2')!.available).toBe(false);
    expect(await client.siteStatus('store-1')).toBe('CLOSED');
    expect(await client.setSiteStatus('store-1', 'READY_TO_OPEN')).toBe('READY_TO_OPEN');
    await client.disableIntegration('store-1');
    expect(sim.stores.get('store-1')!.integrationEnabled).toBe(false);
  });

  test('unknown store 404, bad token 401, unreachable network', async () => {
    expect(await providerError(client.getStore('nope'))).toMatchObject({ kind: 'http', status: 404, code: 'store_not_found' });
    expect(await providerError(new DeliveryAClient({ baseUrl: sim.url, apiToken: 'wrong' }).getStore('store-1'))).toMatchObject({ kind: 'http', status: 401 });
    expect(await providerError(new DeliveryAClient({ baseUrl: 'http://127.0.0.1:9', apiToken: 'x', timeoutMs: 2000 }).getStore('store-1'))).toMatchObject({ kind: 'network' });
  });
});

describe('delivery-a simulator process (bun run dev, e2e)', () => {
  test('starts from its environment with its stores and answers the client', async () => {
    const p = Bun.spawn([process.execPath, `${import.meta.dir}/main.ts`], {
      env: { ...process.env, DELIVERY_A_SIM_PORT: '0', DELIVERY_A_API_TOKEN: 'proc-token-1', DELIVERY_A_SIM_STORES: 'st-a,st-b' },
      stdout: 'pipe',
      stderr: 'inherit',
    });
    try {
      const reader = p.stdout.getReader();
      let text = '';
      while (!/listening on (http:\/\/\S+)/.test(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`exited: ${text}`);
        text += new TextDecoder().decode(value);
      }
      const url = /listening on (http:\/\/\S+)/.exec(text)![1]!;
      const c = new DeliveryAClient({ baseUrl: url, apiToken: 'proc-token-1' });
      expect((await c.getStore('st-b')).id).toBe('st-b');
      // Its stores' link codes are `LINK-<store id>` (dev and e2e enable them with it).
      expect((await c.enableIntegration('st-b', 'loc-e2e', 'LINK-st-b')).integration_enabled).toBe(true);
    } finally {
      p.kill('SIGTERM');
      await p.exited;
    }
  });
});

describe('delivery-a orders against the simulator over HTTP', () => {
  test('read, accept once, deny with a reason; refusals are 404 / 409 / 400; signed webhooks carry ids only', async () => {
    const received: { body: string; signature: string | null }[] = [];
    const hook = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: async (req) => {
        received.push({ body: await req.text(), signature: req.headers.get('x-delivery-a-signature') });
        return Response.json({ received: true });
      },
    });
    const orders = startDeliveryASimulator({ apiToken: 'tok-2', webhookUrl: `http://127.0.0.1:${hook.port}/hook`, webhookSecret: 'whsec-orders-1' });
    try {
      orders.addStore('store-9');
      const c = new DeliveryAClient({ baseUrl: orders.url, apiToken: 'tok-2' });
      const placed = (await (await fetch(`${orders.url}/_sim/stores/store-9/orders`, { method: 'POST', body: JSON.stringify({ items: [{ external_id: 'item-1', name: 'Soup', quantity: 2, unit_price: 450 }], delivery_fee: 200, tip: 50 }) })).json()) as { order: { id: string }; event_id: string };
      expect(placed).toMatchObject({ order: { store_id: 'store-9', status: 'CREATED', total: 1150 }, webhook_status: 200 });
      const id = placed.order.id as string;
      expect(received).toHaveLength(1);
      const body = JSON.parse(received[0]!.body);
      expect(body).toMatchObject({ event_id: placed.event_id, event_type: 'orders.notification', meta: { resource_id: id, status: 'CREATED', user_id: 'store-9' } });
      expect(received[0]!.signature).toBe(new Bun.CryptoHasher('sha256', 'whsec-orders-1').update(received[0]!.body).digest('hex'));

      expect(await c.getOrder(id)).toMatchObject({ id, items: [{ external_id: 'item-1', name: 'Soup', quantity: 2, unit_price: 450 }], delivery_fee: 200, tip: 50, total: 1150, deny_reason: null });
      expect((await c.acceptOrder(id)).status).toBe('ACCEPTED');
      expect((await c.acceptOrder(id)).status).toBe('ACCEPTED');
      expect(await providerError(c.denyOrder(id, 'too late'))).toMatchObject({ kind: 'http', status: 409, code: 'invalid_state' });
      expect(await providerError(c.getOrder('nope'))).toMatchObject({ kind: 'http', status: 404, code: 'order_not_found' });

      const second = ((await (await fetch(`${orders.url}/_sim/stores/store-9/orders`, { method: 'POST', body: JSON.stringify({ items: [{ external_id: 'x', name: 'X', quantity: 1, unit_price: 100 }] }) })).json()) as { order: { id: string } }).order.id;
      expect(await c.denyOrder(second, 'Unknown items: X')).toMatchObject({ status: 'DENIED', deny_reason: 'Unknown items: X' });
      expect(await providerError(c.acceptOrder(second))).toMatchObject({ kind: 'http', status: 409 });
      // Redelivery repeats the same bytes.
      await fetch(`${orders.url}/_sim/webhooks/${placed.event_id}/redeliver`, { method: 'POST' });
      expect(received.at(-1)!.body).toBe(received[0]!.body);
      expect(await providerError(new DeliveryAClient({ baseUrl: orders.url, apiToken: 'wrong-token' }).getOrder(id))).toMatchObject({ status: 401 });
    } finally {
      await orders.stop();
      await hook.stop(true);
    }
  });
});
