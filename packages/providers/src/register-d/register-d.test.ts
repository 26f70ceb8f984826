import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { RegisterDClient } from './register-d-client.ts';
import { startRegisterDSimulator, type RegisterDSimulator } from './register-d-simulator.ts';
import { providerError } from '../shared/provider-test-support.ts';

let sim: RegisterDSimulator;
let client: RegisterDClient;

beforeAll(() => {
  sim = startRegisterDSimulator({ apiToken: 'tok-d-1' });
  sim.addSite('vendor-a', 'site-1', 'Centre');
  client = new RegisterDClient({ baseUrl: sim.url, apiToken: 'tok-d-1' });
});
afterAll(() => sim.stop());


describe('register-d client against the transport simulator over HTTP', () => {
  test('site, link, menu push with counts, ping, unlink', async () => {
    expect(await client.getSite('vendor-a', 'site-1')).toEqual({ id: 'site-1', vendor: 'vendor-a', name: 'Centre', linked_ref: null, menu_items: 0 });
    expect(await providerError(client.pushMenu('vendor-a', 'site-1', []))).toMatchObject({ kind: 'http', status: 409, code: 'site_not_linked' });
    // Without the site owner's link code nothing is linked.
    expect(await providerError(client.linkSite('vendor-a', 'site-1', 'loc-1', 'LINK-WRONG'))).toMatchObject({ kind: 'http', status: 403, code: 'invalid_link_code' });
    expect(sim.site('vendor-a', 'site-1')!.linkedRef).toBeNull();
    expect(await client.linkSite('vendor-a', 'site-1', 'loc-1', sim.site('vendor-a', 'site-1')!.linkCode)).toEqual({ id: 'site-1', vendor: 'vendor-a', name: 'Centre', linked_ref: 'loc-1', menu_items: 0 });
    // Linked to another reference: refused until unlinked.
    expect(await providerError(client.linkSite('vendor-a', 'site-1', 'loc-2', sim.site('vendor-a', 'site-1')!.linkCode))).toMatchObject({ kind: 'http', status: 409, code: 'site_linked', message: 'register-d: The site is linked to another reference' });
    expect(await client.pushMenu('vendor-a', 'site-1', [{ id: 'i1', name: 'Soup', price: 450, available: true }, { id: 'i2', name: 'Bread', price: 200, available: true }])).toEqual({ items: 2, created: 2, updated: 0, removed: 0 });
    expect(await client.pushMenu('vendor-a', 'site-1', [{ id: 'i1', name: 'Soup', price: 500, available: true }, { id: 'i3', name: 'Tea', price: 250, available: false }])).toEqual({ items: 2, created: 1, updated: 1, removed: 1 });
    expect(sim.site('vendor-a', 'site-1')!.menu).toEqual([{ id: 'i1', name: 'Soup', price: 500, available: true }, { id: 'i3', name: 'Tea', price: 250, available: false }]);
    expect(await providerError(client.pushMenu('vendor-a', 'site-1', [{ id: 'i1', name: 'Soup', price: -1, available: true }]))).toMatchObject({ kind: 'http', status: 422, code: 'invalid_menu' });
    expect(await client.ping('vendor-a', 'site-1')).toMatchObject({ ok: true, vendor: 'vendor-a', site_id: 'site-1' });
    await client.unlinkSite('vendor-a', 'site-1');
    expect(sim.site('vendor-a', 'site-1')).toMatchObject({ linkedRef: null, menuPushes: 2 });
  });

  test('unknown vendor or site is a 404, a wrong token a 401, a vendor down a 503, an unreachable hub a network error', async () => {
    expect(await providerError(client.getSite('vendor-z', 'site-1'))).toMatchObject({ kind: 'http', status: 404, code: 'vendor_not_found' });
    expect(await providerError(client.getSite('vendor-b', 'site-1'))).toMatchObject({ kind: 'http', status: 404, code: 'site_not_found' });
    expect(await providerError(new RegisterDClient({ baseUrl: sim.url, apiToken: 'wrong' }).getSite('vendor-a', 'site-1'))).toMatchObject({ kind: 'http', status: 401, code: 'unauthorized' });
    expect(await providerError(client.linkSite('vendor-a', 'site-1', '', sim.site('vendor-a', 'site-1')!.linkCode))).toMatchObject({ kind: 'http', status: 422, code: 'invalid_request' });
    sim.failWith = 503;
    try {
      expect(await providerError(client.ping('vendor-a', 'site-1'))).toMatchObject({ kind: 'http', status: 503, code: 'vendor_unavailable' });
    } finally {
      sim.failWith = null;
    }
    expect((await providerError(new RegisterDClient({ baseUrl: 'http://127.0.0.1:9', apiToken: 'tok-d-1', timeoutMs: 2000 }).getSite('vendor-a', 'site-1'))).kind).toBe('network');
  });

  test('an order is received once per order id: 201 then the same order with 200; unlinked site 409, bad input 422', async () => {
    sim.addSite('vendor-a', 'site-o', 'Orders');
    const order = {
      channel: 'kiosk',
      customer_name: 'Ada',
      lines: [{ name: 'Espresso', quantity: 3, unit_price: 250 }, { name: 'Croissant', quantity: 1, unit_price: 300 }],
      totals: { subtotal: 1050, tip: 100, service_charge: 0, discount: 50, total: 1100 },
    };
    expect(await providerError(client.putOrder('vendor-a', 'site-o', 'ord-1', order))).toMatchObject({ kind: 'http', status: 409, code: 'site_not_linked', message: 'register-d: The site is not linked' });
    expect(sim.site('vendor-a', 'site-o')!.orders).toEqual([]);
    await client.linkSite('vendor-a', 'site-o', 'loc-o', sim.site('vendor-a', 'site-o')!.linkCode);

    const first = await client.putOrder('vendor-a', 'site-o', 'ord-1', order);
    expect(first).toEqual({ id: expect.stringMatching(/^rd-ord-\d+$/), order_id: 'ord-1', vendor: 'vendor-a', site_id: 'site-o', status: 'received', ...order, received_at: expect.any(String) });
    // Again, even with another body: the order already received, nothing new.
    expect(await client.putOrder('vendor-a', 'site-o', 'ord-1', { ...order, customer_name: null })).toEqual(first);
    expect(sim.site('vendor-a', 'site-o')!.orders).toEqual([first]);

    // The statuses as the transport answers them: 201 for a new order, 200 for a repeat.
    const put = (id: string, body: unknown) =>
      fetch(`${sim.url}/v1/vendors/vendor-a/sites/site-o/orders/${id}`, { method: 'PUT', headers: { authorization: 'Bearer tok-d-1', 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const created = await put('ord-2', order);
    expect(created.status).toBe(201);
    const again = await put('ord-2', order);
    expect([again.status, await again.json()]).toEqual([200, await created.json()]);
    expect(sim.site('vendor-a', 'site-o')!.orders.map((o) => o.order_id)).toEqual(['ord-1', 'ord-2']);

    for (const bad of [
      { ...order, lines: [] },
      { ...order, channel: 'fax' },
      { ...order, lines: [{ name: 'Espresso', quantity: 0, unit_price: 250 }] },
      { ...order, lines: [{ name: 'Espresso', quantity: 1, unit_price: 2.5 }] },
      { ...order, totals: { ...order.totals, subtotal: 999 } },
      { ...order, totals: { ...order.totals, tip: -1 } },
    ])
      expect(await providerError(client.putOrder('vendor-a', 'site-o', 'ord-bad', bad))).toMatchObject({ kind: 'http', status: 422, code: 'invalid_order' });
    expect((await put('ord-bad', null)).status).toBe(422);
    expect(sim.site('vendor-a', 'site-o')!.orders).toHaveLength(2);
    expect(await providerError(client.putOrder('vendor-a', 'site-none', 'ord-1', order))).toMatchObject({ kind: 'http', status: 404, code: 'site_not_found' });
    expect(await providerError(new RegisterDClient({ baseUrl: sim.url, apiToken: 'wrong' }).putOrder('vendor-a', 'site-o', 'ord-3', order))).toMatchObject({ kind: 'http', status: 401 });
  });

  test('the control route adds a site', async () => {
    const r = await fetch(`${sim.url}/_sim/vendors/vendor-b/sites`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ id: 'b-9', name: 'Harbour' }) });
    expect(r.status).toBe(201);
    expect(await client.getSite('vendor-b', 'b-9')).toEqual({ id: 'b-9', vendor: 'vendor-b', name: 'Harbour', linked_ref: null, menu_items: 0 });
  });
});

describe('the dev/e2e process (main.ts)', () => {
  test('starts from its environment with the listed sites and answers the client', async () => {
    const p = Bun.spawn([process.execPath, `${import.meta.dir}/main.ts`], {
      env: { ...process.env, REGISTER_D_SIM_PORT: '0', REGISTER_D_API_TOKEN: 'proc-token-d', REGISTER_D_VENDORS: 'vendor-a,vendor-c', REGISTER_D_SIM_SITES: 'vendor-c:c-1' },
      stdout: 'pipe',
      stderr: 'inherit',
    });
    try {
      const reader = p.stdout.getReader();
      let text = '';
      while (!/listening on (http:\/\/\S+)/.test(text)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`main.ts exited: ${text}`);
        text += new TextDecoder().decode(value);
      }
      const url = /listening on (http:\/\/\S+)/.exec(text)![1]!;
      const c = new RegisterDClient({ baseUrl: url, apiToken: 'proc-token-d' });
      expect(await c.getSite('vendor-c', 'c-1')).toEqual({ id: 'c-1', vendor: 'vendor-c', name: 'Site c-1', linked_ref: null, menu_items: 0 });
      expect(await providerError(c.getSite('vendor-b', 'c-1'))).toMatchObject({ status: 404, code: 'vendor_not_found' });
      expect((await fetch(`${url}/_sim/ping`)).status).toBe(200);
    } finally {
      p.kill('SIGTERM');
      await p.exited;
    }
  });
});
