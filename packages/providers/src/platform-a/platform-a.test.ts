import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ProviderError } from '../shared/provider-error.ts';
import { PlatformAClient } from './platform-a-client.ts';
import { startPlatformASimulator, type PlatformASimulator } from './platform-a-simulator.ts';

let sim: PlatformASimulator;
let client: PlatformAClient;
const hooks: { body: string; signature: string | null }[] = [];
let hookServer: ReturnType<typeof Bun.serve>;
let hookUrl: string;

beforeAll(() => {
  hookServer = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: async (req) => (hooks.push({ body: await req.text(), signature: req.headers.get('x-platform-a-hmacsha256-signature') }), new Response('ok')) });
  hookUrl = `http://127.0.0.1:${hookServer.port}/api/webhook/platform-a`;
  sim = startPlatformASimulator({ accessToken: 'pa-token', webhookUrl: hookUrl, webhookSignatureKey: 'pa-sig-key' });
  client = new PlatformAClient({ baseUrl: sim.url, accessToken: 'pa-token' });
});
afterAll(async () => {
  await sim.stop();
  await hookServer.stop(true);
});

const create = (key: string, amount = 2200) => client.createTerminalCheckout({ idempotencyKey: key, amount, currency: 'EUR', deviceId: 'DEV-1', referenceId: 'tx-1', note: 'Order 7' });

describe('platform-a client against the simulator', () => {
  test('create (idempotent by key), get, complete: COMPLETED with a payment id and a signed webhook', async () => {
    const c = await create('k-1');
    expect(c).toMatchObject({ amount_money: { amount: 2200, currency: 'EUR' }, device_options: { device_id: 'DEV-1' }, reference_id: 'tx-1', status: 'PENDING', payment_ids: [] });
    expect((await create('k-1')).id).toBe(c.id);
    expect(sim.created).toBe(1);
    await sim.complete(c.id);
    const done = await client.getTerminalCheckout(c.id);
    expect(done.status).toBe('COMPLETED');
    expect(done.payment_ids.length).toBe(1);
    const hook = hooks.at(-1)!;
    expect(JSON.parse(hook.body)).toMatchObject({ type: 'terminal.checkout.updated', data: { id: c.id, object: { checkout: { id: c.id, status: 'COMPLETED' } } } });
    expect(hook.signature).toBe(createHmac('sha256', 'pa-sig-key').update(hookUrl + hook.body).digest('base64'));
  });

  test('cancel, decline and time-out end CANCELED with their reasons; a completed checkout cannot be cancelled', async () => {
    const a = await create('k-2');
    expect(await client.cancelTerminalCheckout(a.id)).toMatchObject({ status: 'CANCELED', cancel_reason: 'SELLER_CANCELED' });
    const b = await create('k-3');
    await sim.decline(b.id);
    expect(await client.getTerminalCheckout(b.id)).toMatchObject({ status: 'CANCELED', cancel_reason: 'BUYER_CANCELED' });
    const c = await create('k-4');
    await sim.timeout(c.id);
    expect(await client.getTerminalCheckout(c.id)).toMatchObject({ status: 'CANCELED', cancel_reason: 'TIMED_OUT' });
    const d = await create('k-5');
    await sim.complete(d.id);
    const e = (await client.cancelTerminalCheckout(d.id).then(() => null, (x: unknown) => x)) as ProviderError;
    expect(e).toBeInstanceOf(ProviderError);
    expect([e.status, e.code, e.message]).toEqual([400, 'BAD_REQUEST', 'platform-a: Checkout is already completed']);
  });

  test('unknown checkout 404, bad token 401, bad amount 400', async () => {
    const nf = (await client.getTerminalCheckout('nope').then(() => null, (x: unknown) => x)) as ProviderError;
    expect([nf.status, nf.code]).toEqual([404, 'NOT_FOUND']);
    const bad = new PlatformAClient({ baseUrl: sim.url, accessToken: 'wrong' });
    const un = (await bad.getTerminalCheckout('x').then(() => null, (x: unknown) => x)) as ProviderError;
    expect([un.status, un.code]).toEqual([401, 'UNAUTHORIZED']);
    const zero = (await create('k-6', 0).then(() => null, (x: unknown) => x)) as ProviderError;
    expect([zero.status, zero.code]).toEqual([400, 'INVALID_VALUE']);
  });

  test('online payment: a card nonce completes (idempotent by key), a declined nonce is a 402 GENERIC_DECLINE', async () => {
    const pay = await client.createPayment({ idempotencyKey: 'op-1', sourceId: 'cnon:card-nonce-ok', amount: 1525, currency: 'EUR', referenceId: 'tx-9', locationId: 'PA-LOC' });
    expect(pay).toMatchObject({ status: 'COMPLETED', amount_money: { amount: 1525, currency: 'EUR' }, reference_id: 'tx-9' });
    expect((await client.createPayment({ idempotencyKey: 'op-1', sourceId: 'cnon:card-nonce-ok', amount: 1525, currency: 'EUR', referenceId: 'tx-9', locationId: 'PA-LOC' })).id).toBe(pay.id);
    expect((await client.getPayment(pay.id)).status).toBe('COMPLETED');
    const declined = (await client.createPayment({ idempotencyKey: 'op-2', sourceId: 'cnon:card-nonce-declined', amount: 100, currency: 'EUR', referenceId: 'x', locationId: 'PA-LOC' }).then(() => null, (x: unknown) => x)) as ProviderError;
    expect([declined.status, declined.code, declined.message]).toEqual([402, 'GENERIC_DECLINE', 'platform-a: Authorization error: GENERIC_DECLINE']);
    const nf = (await client.getPayment('nope').then(() => null, (x: unknown) => x)) as ProviderError;
    expect(nf.status).toBe(404);
  });
});

describe('platform-a catalog push', () => {
  test('batch upsert keyed by client id: a repeat updates the same objects', async () => {
    const s = startPlatformASimulator({ accessToken: 'catalog-token-1' });
    try {
      const c = new PlatformAClient({ baseUrl: s.url, accessToken: 'catalog-token-1' });
      expect(await c.upsertCatalog('k1', [{ id: 'a', name: 'Soup', price: 450, currency: 'EUR' }, { id: 'b', name: 'Bread', price: 200, currency: 'EUR' }])).toBe(2);
      const first = s.catalog.get('#a')!.object_id;
      expect(await c.upsertCatalog('k2', [{ id: 'a', name: 'Soup of the day', price: 500, currency: 'EUR' }])).toBe(1);
      expect(s.catalog.get('#a')).toEqual({ object_id: first, name: 'Soup of the day', amount: 500, currency: 'EUR' });
      expect(s.catalog.size).toBe(2);
      expect(s.catalogUpserts).toEqual(['k1-0', 'k2-0']);
      expect(await c.upsertCatalog('k3', [])).toBe(0);
      await expect(new PlatformAClient({ baseUrl: s.url, accessToken: 'wrong' }).upsertCatalog('k4', [{ id: 'a', name: 'x', price: 1, currency: 'EUR' }])).rejects.toMatchObject({ status: 401 });
    } finally {
      await s.stop();
    }
  });
});
