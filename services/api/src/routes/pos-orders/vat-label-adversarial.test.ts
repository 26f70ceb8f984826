import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { call, line, signIn, type Register } from '../pos-tills/register-test-support.ts';

// The register's order upsert at a location that signs (active GKS enrolment): a line whose VAT rate has
// no fiscal label (A 21 %, B 12 %, C 6 %, D 0 %) is refused on that line, nothing stored.

let api: TestApi;
let m: DemoSeedResult;
let manager: Register;
let owner: string;

const NINE = 'The VAT rate of Espresso (9 %) has no fiscal label: only 21 %, 12 %, 6 % and 0 % can be signed. Give the item a Belgian VAT rate or take the line off.';

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed(`vat-label-${crypto.randomUUID().slice(0, 8)}`);
  manager = await signIn(api, m, 'manager', 0);
  owner = await api.ownerToken(m);
  expect((await api.call('POST', '/api/back-office/tax-rates', { token: owner, body: { name: 'Nine', rate: 9 } })).status).toBe(201);
  const espresso = m.items.find((i) => i.name === 'Espresso')!;
  expect((await api.call('PUT', `/api/back-office/items/${espresso.id}`, { token: owner, body: { vat_rate: 9 } })).status).toBe(200);
});
afterAll(() => api.close());

const setEnrolment = (status: 'active' | 'retired') => manager.tdb.updateTable('fdm_devices').set({ status }).where('location_id', '=', m.locations[0]!.id).execute();

describe('order upsert, adversarial: a VAT rate without a fiscal label', () => {
  test('at a signing location the line is refused with a 422 naming it; no order is stored', async () => {
    const id = crypto.randomUUID();
    const put = await call(manager, 'PUT', `/pos/orders/${id}`, { lines: [line(manager, 'Croissant'), line(manager, 'Espresso')] });
    expect(put.status).toBe(422);
    expect(put.body.errors).toEqual({ 'lines.1.item_id': [NINE] });
    expect((await call(manager, 'GET', `/pos/orders/${id}`)).status).toBe(404);
    expect(await manager.tdb.selectFrom('pos_orders').select('id').where('id', '=', id).execute()).toEqual([]);
    // The rest of the order is taken.
    expect((await call(manager, 'PUT', `/pos/orders/${id}`, { lines: [line(manager, 'Croissant')] })).status).toBe(200);
  });

  test('an order stored before cannot take the line in an edit either; it keeps its version and lines', async () => {
    const id = crypto.randomUUID();
    const first = await call(manager, 'PUT', `/pos/orders/${id}`, { lines: [line(manager, 'Croissant')] });
    expect(first.status).toBe(200);
    const edit = await call(manager, 'PUT', `/pos/orders/${id}`, { expected_version: first.body.version, lines: [line(manager, 'Espresso', 2), line(manager, 'Croissant')] });
    expect([edit.status, edit.body.errors]).toEqual([422, { 'lines.0.item_id': [NINE] }]);
    const now = await call(manager, 'GET', `/pos/orders/${id}`);
    expect([now.body.version, now.body.lines.length]).toEqual([first.body.version, 1]);
  });

  test('at a location that does not sign, the line is taken (nothing will be signed there)', async () => {
    await setEnrolment('retired');
    try {
      const put = await call(manager, 'PUT', `/pos/orders/${crypto.randomUUID()}`, { lines: [line(manager, 'Espresso')] });
      expect(put.status).toBe(200);
      expect(put.body.totals.by_vat_rate).toEqual([{ rate: 9, net: 257, vat: 23, gross: 280 }]);
    } finally {
      await setEnrolment('active');
    }
  });
});
