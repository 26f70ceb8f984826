import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import type { TestApi } from '../../testing/harness.ts';
import { startKioskPaymentsApi, type KioskPaymentsApi } from '../../testing/kiosk-payments-api.ts';

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
