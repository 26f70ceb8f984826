import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import type { TestApi } from '../../testing/harness.ts';
import { startKioskPaymentsApi, type KioskPaymentsApi } from '../../testing/kiosk-payments-api.ts';
import { capturePayment } from '@pos/core/payments/capture-payment';

// Customer channels (kiosk, online, table QR) do not sell what the location no longer holds: a tracked
// item at zero is sold out, a basket wanting more than is left is refused; nothing is written then.
let k: KioskPaymentsApi;
let api: TestApi;
let m: DemoSeedResult;
let kiosk: string;
let owner: string;

beforeAll(async () => {
  k = await startKioskPaymentsApi('sold-out');
  ({ api, m, kiosk, owner } = k);
}, 60_000);
afterAll(() => k.close());

const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);
const item = (name: string) => m.items.find((i) => i.name === name)!;
const loc0 = () => m.locations[0]!.id;
const bo = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: owner, body });
const quote = (lines: unknown[]) => api.call('POST', '/api/kiosk/pricing/quote', { token: kiosk, deviceKey: true, body: { lines } });
const create = (body: unknown) => api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body });
const validate = (lines: unknown[]) => api.call('POST', `/api/online-ordering/${m.merchant.slug}/${loc0()}/offers/validate`, { body: { lines } });
const onlinePay = (body: Record<string, unknown>) => api.call('POST', `/api/online-ordering/${m.merchant.slug}/${loc0()}/payment`, { body });
const transactions = async () => Number((await tdb().selectFrom('transactions').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
/** Sets the item's stock at the first location with a count (the back office's own route). */
const stock = async (name: string, quantity: number) => {
  const r = await bo('POST', '/inventories', { item_id: item(name).id, location_id: loc0(), type: 'count', quantity });
  expect(r.status).toBe(201);
};

describe('sold-out items on customer channels', () => {
  test('a tracked item at zero is refused on the kiosk quote, create-intent, the online quote and payment; nothing is written', async () => {
    await stock('Croissant', 0);
    const lines = [{ item_id: item('Espresso').id, qty: 1 }, { item_id: item('Croissant').id, qty: 1 }];
    const body = { message: 'Croissant is sold out.', reason: 'insufficient_stock', errors: { 'lines.1.item_id': ['Croissant is sold out.'] } };
    const before = await transactions();
    for (const r of [await quote(lines), await create({ lines }), await validate(lines), await onlinePay({ lines })]) {
      expect(r.status).toBe(422);
      expect(r.body).toEqual(body);
    }
    expect(await transactions()).toBe(before);
  });

  test('lines of one item draw on one stock: more than is left is refused on the first line, with what is left', async () => {
    await stock('Croissant', 3);
    const two = [{ item_id: item('Croissant').id, qty: 2 }, { item_id: item('Espresso').id, qty: 1 }, { item_id: item('Croissant').id, qty: 2 }];
    const r = await quote(two);
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ message: 'Only 3 of Croissant left.', reason: 'insufficient_stock', errors: { 'lines.0.qty': ['Only 3 of Croissant left.'] } });
    const ok = await quote([{ item_id: item('Croissant').id, qty: 3 }]);
    expect([ok.status, ok.body.data?.lines?.[0]?.qty]).toEqual([200, 3]);
  });

  test('the stock of another location does not count; an untracked item and one allowed below zero sell', async () => {
    await stock('Croissant', 0);
    if (m.locations[1]) {
      expect((await bo('POST', '/inventories', { item_id: item('Croissant').id, location_id: m.locations[1].id, type: 'count', quantity: 50 })).status).toBe(201);
      expect((await quote([{ item_id: item('Croissant').id, qty: 1 }])).status).toBe(422);
    }
    // Espresso has no stock level at the location: it is not tracked there.
    expect((await quote([{ item_id: item('Espresso').id, qty: 40 }])).status).toBe(200);
    expect((await bo('PUT', `/items/${item('Croissant').id}`, { allow_negative_stock: true })).status).toBe(200);
    try {
      expect((await quote([{ item_id: item('Croissant').id, qty: 5 }])).status).toBe(200);
    } finally {
      await bo('PUT', `/items/${item('Croissant').id}`, { allow_negative_stock: false });
    }
  });

  test('a restock puts the item back on sale at once (the published menu cache does not hold stock)', async () => {
    await stock('Croissant', 0);
    expect((await validate([{ item_id: item('Croissant').id, qty: 1 }])).status).toBe(422);
    await stock('Croissant', 1);
    const r = await validate([{ item_id: item('Croissant').id, qty: 1 }]);
    expect([r.status, r.body.data?.total]).toEqual([200, item('Croissant').unit_price]);
  });
});

describe('a checkout holds the stock it sells until it is paid, cancelled or expired', () => {
  const holds = (transactionId: string) => tdb().selectFrom('stock_reservations').select(['item_id', 'qty']).where('transaction_id', '=', transactionId).execute();
  const cancel = (key: string) => api.call('POST', '/api/kiosk/payment/cancel-action', { token: kiosk, deviceKey: true, body: { idempotency_key: key } });

  test('the kiosk holds the last croissant: online is told it is sold out, the kiosk may retry its own payment; a cancel frees it', async () => {
    await stock('Croissant', 1);
    const lines = [{ item_id: item('Croissant').id, qty: 1 }];
    const c = await create({ lines });
    expect(c.status).toBe(200);
    const id = c.body.data.transaction_id ?? c.body.data.id;
    expect(await holds(id)).toEqual([{ item_id: item('Croissant').id, qty: 1 }]);
    expect((await tdb().selectFrom('transactions').select('cart_session_id').where('id', '=', id).executeTakeFirstOrThrow()).cart_session_id).toBe(id);
    const before = await transactions();
    for (const r of [await validate(lines), await onlinePay({ lines }), await quote(lines)]) {
      expect({ status: r.status, body: r.body }).toEqual({ status: 422, body: { message: 'Croissant is sold out.', reason: 'insufficient_stock', errors: { 'lines.0.item_id': ['Croissant is sold out.'] } } });
    }
    expect(await transactions()).toBe(before);
    // The kiosk's own retry pays the order it holds the stock for.
    const retry = await create({ transaction_id: id });
    expect(retry.status).toBe(200);
    expect(await holds(id)).toHaveLength(1);
    expect((await cancel(retry.body.data.idempotency_key)).status).toBe(200);
    const v = await validate(lines);
    expect([v.status, v.body.data?.total]).toEqual([200, item('Croissant').unit_price]);
  });

  test('a declined payment frees its croissant: the retry does not take it back from the checkout that has it now; once free again, the retry holds it', async () => {
    await stock('Croissant', 1);
    const lines = [{ item_id: item('Croissant').id, qty: 1 }];
    const a = (await create({ lines })).body.data;
    const id = a.transaction_id ?? a.id;
    const statusOf = async (tid: string) => (await tdb().selectFrom('transactions').select('status').where('id', '=', tid).executeTakeFirstOrThrow()).status;
    await k.cardB.decline(a.idempotency_key);
    // The poll the details route dispatches (run by the worker) records the decline.
    const captureDeps = { tdb: tdb(), tenantDatabase: m.merchant.tenant_database, redis: api.deps.redis, providers: api.deps.payments, log: api.deps.log, now: () => new Date() };
    expect((await capturePayment(captureDeps, id, { kind: 'poll' })).status).toBe('Unpaid');
    // The failed payment's hold no longer counts: another checkout takes the croissant.
    const b = await onlinePay({ lines });
    expect(b.status).toBe(200);
    const sales = k.cardB.saleRequests;
    // Before: 200 and a new sale on the terminal; both orders paid would leave the stock at -1.
    expect(await create({ transaction_id: id })).toMatchObject({ status: 422, body: { message: 'Croissant is sold out.', reason: 'insufficient_stock' } });
    expect(await statusOf(id)).toBe('Unpaid');
    expect(k.cardB.saleRequests).toBe(sales);
    // The other checkout's hold runs out: the retry takes the croissant again, held for another 15 minutes.
    await tdb().updateTable('stock_reservations').set({ expires_at: new Date(Date.now() - 1000) }).where('transaction_id', '=', b.body.data.transaction_id).execute();
    const again = await create({ transaction_id: id });
    expect(again.body.data).toMatchObject({ status: 'Awaiting Payment' });
    const held = await tdb().selectFrom('stock_reservations').select(['qty', 'expires_at']).where('transaction_id', '=', id).execute();
    expect(held.map((h) => h.qty)).toEqual([1]);
    expect(held[0]!.expires_at.getTime()).toBeGreaterThan(Date.now() + 14 * 60_000);
    expect((await validate(lines)).status).toBe(422);
    expect((await cancel(again.body.data.idempotency_key)).status).toBe(200);
  });

  test('an open order whose hold ran out and was cleared by another checkout: the retry does not take the croissant back', async () => {
    await stock('Croissant', 1);
    const lines = [{ item_id: item('Croissant').id, qty: 1 }];
    const a = (await create({ lines })).body.data;
    const id = a.transaction_id ?? a.id;
    // The terminal declined, not recorded yet (the order is still Awaiting Payment); the hold runs out and
    // another checkout takes the croissant, clearing the expired hold on the way.
    await k.cardB.decline(a.idempotency_key);
    await tdb().updateTable('stock_reservations').set({ expires_at: new Date(Date.now() - 1000) }).where('transaction_id', '=', id).execute();
    const b = await onlinePay({ lines });
    expect(b.status).toBe(200);
    expect(await holds(id)).toEqual([]);
    const sales = k.cardB.saleRequests;
    // Before: 200 and a new sale on the terminal for a croissant the other order holds.
    expect(await create({ transaction_id: id })).toMatchObject({ status: 422, body: { message: 'Croissant is sold out.', reason: 'insufficient_stock' } });
    expect(k.cardB.saleRequests).toBe(sales);
    // Once the other hold ran out too, the retry holds the croissant again.
    await tdb().updateTable('stock_reservations').set({ expires_at: new Date(Date.now() - 1000) }).where('transaction_id', '=', b.body.data.transaction_id).execute();
    const again = await create({ transaction_id: id });
    expect(again.status).toBe(200);
    expect(await holds(id)).toEqual([{ item_id: item('Croissant').id, qty: 1 }]);
    expect((await cancel(again.body.data.idempotency_key)).status).toBe(200);
  });

  test('checkouts racing for the last two croissants: exactly two orders are written, the others are told it is sold out', async () => {
    await stock('Croissant', 2);
    const before = await transactions();
    const answers = await Promise.all(Array.from({ length: 6 }, () => onlinePay({ lines: [{ item_id: item('Croissant').id, qty: 1 }] })));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 422, 422, 422, 422]);
    for (const r of answers.filter((x) => x.status === 422)) expect(r.body).toMatchObject({ reason: 'insufficient_stock', message: 'Croissant is sold out.' });
    expect(await transactions()).toBe(before + 2);
    const held = await tdb().selectFrom('stock_reservations').select((eb) => eb.fn.sum<string>('qty').as('n')).where('item_id', '=', item('Croissant').id).where('expires_at', '>', new Date()).executeTakeFirstOrThrow();
    expect(Number(held.n)).toBeGreaterThanOrEqual(2);
  });

  test('an expired hold no longer counts; a restock beyond the holds sells again', async () => {
    await tdb().updateTable('stock_reservations').set({ expires_at: new Date(Date.now() - 1000) }).where('item_id', '=', item('Croissant').id).execute();
    expect((await validate([{ item_id: item('Croissant').id, qty: 2 }])).status).toBe(200);
    const r = await onlinePay({ lines: [{ item_id: item('Croissant').id, qty: 2 }] });
    expect(r.status).toBe(200);
    // The new hold took both; the expired ones were cleared on the way.
    expect(await tdb().selectFrom('stock_reservations').select('qty').where('item_id', '=', item('Croissant').id).execute()).toEqual([{ qty: 2 }]);
    expect((await validate([{ item_id: item('Croissant').id, qty: 1 }])).status).toBe(422);
    await stock('Croissant', 3);
    expect((await validate([{ item_id: item('Croissant').id, qty: 1 }])).status).toBe(200);
  });
});
