import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { FULL_PERMISSIONS } from '@pos/core/auth/access';
import { posCoverage } from '@pos/core/reports/pos-coverage';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';
import { insertRefund, insertSale, nothing, registerSession, sellThroughApi, today, yesterday } from '../pos-admin/pos-admin.test-support.ts';

let api: TestApi;
let m: DemoSeedResult;
let owner: string;

const loc0 = () => m.locations[0]!.id;
const loc1 = () => m.locations[1]!.id;
const sales = (query: string, token = owner) => api.call('GET', `/api/back-office/reports/sales?${query}`, { token });
const coverage = (token = owner, query = '') => api.call('GET', `/api/back-office/reports/pos-coverage${query}`, { token });
/** The by_channel rows of a report where only the register sold: [sales_count, refunds_count, gross, refunds]. */
const registerOnly = (f: [number, number, number, number]) => [
  { channel: 'register', sales_count: f[0], refunds_count: f[1], gross: f[2], refunds: f[3], net: f[2] - f[3], tips: 0, fees: 0 },
  ...['kiosk', 'online_ordering', 'table_qr', 'delivery'].map((channel) => ({ channel, sales_count: 0, refunds_count: 0, gross: 0, refunds: 0, net: 0, tips: 0, fees: 0 })),
];
const rows = (cash: [number, number], card: [number, number], meal: [number, number], gift: [number, number], unknown: [number, number]) => [
  { label: 'Cash', amount: cash[0], count: cash[1] },
  { label: 'Card', amount: card[0], count: card[1] },
  { label: 'Meal voucher', amount: meal[0], count: meal[1] },
  { label: 'Gift voucher', amount: gift[0], count: gift[1] },
  { label: 'Unknown', amount: unknown[0], count: unknown[1] },
];

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('reports');
  owner = await api.ownerToken(m);
  const session = await registerSession(api, m, 'manager');
  // Today at location 0, through the register: 780 cash; 780 card 500 + cash 280; 450 meal voucher.
  const first = await sellThroughApi(api, m, session, ['Espresso', 'Espresso', 'Croissant'], { amount_tendered: 1000 });
  await sellThroughApi(api, m, session, ['Espresso', 'Espresso', 'Croissant'], { tenders: [{ method: 'card', funding: 'debit', amount: 500 }, { method: 'cash', amount_tendered: 300 }] });
  await sellThroughApi(api, m, session, ['Belgian beer'], { tenders: [{ method: 'meal_voucher', amount: 450 }] });
  // A malformed tender (unknown kind) the register would never freeze: its whole total goes under Unknown.
  await insertSale(api, m, { locationId: loc0(), total: 1000, tender: { legs: [{ kind: 'bitcoin', amount: 1000 }], rounding: 0 }, byVatRate: [{ rate: 21, net: 826, vat: 174, gross: 1000 }], businessDate: today() });
  // A croissant refunded in cash.
  await insertRefund(api, m, { transactionId: first.transaction_id, locationId: loc0(), amount: 220, byVatRate: [{ rate: 6, net: 208, vat: 12, gross: 220 }], businessDate: today() });
  // Location 1 today: 300 cash. Location 0 yesterday: 300 gift voucher.
  await insertSale(api, m, { locationId: loc1(), total: 300, tender: { legs: [{ kind: 'cash', amount: 300 }], rounding: 0 }, byVatRate: [{ rate: 21, net: 248, vat: 52, gross: 300 }], businessDate: today() });
  await insertSale(api, m, { locationId: loc0(), total: 300, tender: { legs: [{ kind: 'gift_voucher', amount: 300 }], rounding: 0 }, byVatRate: [{ rate: 21, net: 248, vat: 52, gross: 300 }], businessDate: yesterday() });
});
afterAll(() => api.close());

describe('GET /back-office/reports/sales', () => {
  test('totals, tender rows (split per leg, Unknown for a malformed tender, refunds off Cash) and VAT rates over every granted location', async () => {
    const r = await sales(`from=${today()}&to=${today()}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: {
        from: today(),
        to: today(),
        location_ids: [loc0(), loc1()].sort(),
        totals: { sales_count: 5, refunds_count: 1, gross: 3310, refunds: 220, net: 3090, tips: 0, fees: 0 },
        by_channel: registerOnly([5, 1, 3310, 220]),
        by_tender: rows([1140, 3], [500, 1], [450, 1], [0, 0], [1000, 1]),
        by_vat_rate: [
          { rate: 21, net: 2372, vat: 498, gross: 2870 },
          { rate: 6, net: 208, vat: 12, gross: 220 },
        ],
      },
    });
  });

  test('location_id narrows; a range of dates; an empty range is all zeros', async () => {
    expect((await sales(`from=${today()}&to=${today()}&location_id=${loc1()}`)).body).toEqual({
      data: { from: today(), to: today(), location_ids: [loc1()], totals: { sales_count: 1, refunds_count: 0, gross: 300, refunds: 0, net: 300, tips: 0, fees: 0 }, by_channel: registerOnly([1, 0, 300, 0]), by_tender: rows([300, 1], [0, 0], [0, 0], [0, 0], [0, 0]), by_vat_rate: [{ rate: 21, net: 248, vat: 52, gross: 300 }] },
    });
    const both = await sales(`from=${yesterday()}&to=${today()}&location_id=${loc0()}`);
    expect(both.body.data.totals).toEqual({ sales_count: 5, refunds_count: 1, gross: 3310, refunds: 220, net: 3090, tips: 0, fees: 0 });
    expect(both.body.data.by_tender).toEqual(rows([840, 2], [500, 1], [450, 1], [300, 1], [1000, 1]));
    expect((await sales('from=2020-01-01&to=2020-01-31')).body.data).toEqual({
      from: '2020-01-01',
      to: '2020-01-31',
      location_ids: [loc0(), loc1()].sort(),
      totals: { sales_count: 0, refunds_count: 0, gross: 0, refunds: 0, net: 0, tips: 0, fees: 0 },
      by_channel: registerOnly([0, 0, 0, 0]),
      by_tender: rows([0, 0], [0, 0], [0, 0], [0, 0], [0, 0]),
      by_vat_rate: [],
    });
  });

  test('validation of the dates and the location', async () => {
    expect((await sales(`to=${today()}`)).status).toBe(422);
    expect(await sales(`from=${today()}&to=${yesterday()}`)).toMatchObject({ status: 422, body: { errors: { to: ['The to field must be a date after or equal to from.'] } } });
    expect(await sales('from=2026-02-30&to=2026-03-01')).toMatchObject({ status: 422, body: { errors: { from: ['The from field must be a valid date (YYYY-MM-DD).'] } } });
    expect(await sales('from=2024-01-01&to=2026-01-01')).toMatchObject({ status: 422, body: { errors: { to: ['A report covers at most 366 days.'] } } });
    expect((await sales(`from=${today()}&to=${today()}&location_id=nope`)).status).toBe(422);
    expect(await sales(`from=${today()}&to=${today()}&location_id=${nothing()}`)).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
  });

  test('VIEW_SALES_REPORTS, restricted to the grant; no admin-vendor-override; no first-party marker needed', async () => {
    const member = await makeMember(api, m, ['VIEW_SALES_REPORTS'], { locationIds: [loc1()] });
    const own = await sales(`from=${today()}&to=${today()}`, member.token);
    expect(own.body.data).toMatchObject({ location_ids: [loc1()], totals: { sales_count: 1, gross: 300 } });
    expect(await sales(`from=${today()}&to=${today()}&location_id=${loc0()}`, member.token)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    const none = await makeMember(api, m, ['VIEW_SALES_REPORTS'], { locationIds: [] });
    expect((await sales(`from=${today()}&to=${today()}`, none.token)).body.data).toMatchObject({ location_ids: [], totals: { sales_count: 0, net: 0 } });
    const pos = await makeMember(api, m, ['VIEW_POS_REPORTS', 'VIEW_KITCHEN_REPORTS']);
    expect(await sales(`from=${today()}&to=${today()}`, pos.token)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    // The report routes carry no admin-vendor-override: vendor_id is not a parameter of this route
    // (422), so an admin never silently sees their own merchant's figures for another's.
    const other = await api.seed('reports-vendor');
    const admin = await makeMember(api, m, ['VIEW_SALES_REPORTS'], { allLocations: true });
    await api.deps.db.updateTable('users').set({ is_global_admin: true }).where('id', '=', admin.userId).execute();
    expect((await sales(`from=${today()}&to=${today()}&vendor_id=${other.merchant.id}`, admin.token)).status).toBe(422);
    expect((await sales(`from=${today()}&to=${today()}`, admin.token)).body.data.location_ids).toEqual([loc0(), loc1()].sort());
    // the first-party marker is not needed
    await api.deps.db.updateTable('merchants').set({ pos_provider: null }).where('id', '=', other.merchant.id).execute();
    expect((await sales(`from=${today()}&to=${today()}`, await api.ownerToken(other))).status).toBe(200);
  });
});

describe('GET /back-office/reports/pos-coverage', () => {
  test('first-party merchant: every granted location is `firstparty`, connected', async () => {
    const r = await coverage();
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      pos_coverage: {
        [loc0()]: { pos_provider: 'firstparty', pos_connected: true },
        [loc1()]: { pos_provider: 'firstparty', pos_connected: true },
      },
    });
  });

  test('any one of VIEW_SALES_REPORTS, VIEW_POS_REPORTS, VIEW_KITCHEN_REPORTS; only granted locations; `{}` with none', async () => {
    for (const p of ['VIEW_SALES_REPORTS', 'VIEW_POS_REPORTS', 'VIEW_KITCHEN_REPORTS']) {
      const member = await makeMember(api, m, [p], { locationIds: [loc1()] });
      expect(await coverage(member.token)).toMatchObject({ status: 200, body: { pos_coverage: { [loc1()]: { pos_provider: 'firstparty', pos_connected: true } } } });
      expect(Object.keys((await coverage(member.token)).body.pos_coverage)).toEqual([loc1()]);
    }
    const none = await makeMember(api, m, ['VIEW_KITCHEN_REPORTS'], { locationIds: [] });
    const empty = await coverage(none.token);
    expect(empty.status).toBe(200);
    expect(empty.text).toBe('{"pos_coverage":{}}');
    const other = await makeMember(api, m, ['VIEW_ITEMS', 'VIEW_POS_CONFIGURATION', 'MANAGE_POS_STAFF']);
    expect(await coverage(other.token)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
  });

  test('a merchant without the marker and without integrations: null, not connected (no first-party-pos gate)', async () => {
    const plain = await api.seed('reports-plain');
    await api.deps.db.updateTable('merchants').set({ pos_provider: null }).where('id', '=', plain.merchant.id).execute();
    expect((await coverage(await api.ownerToken(plain))).body).toEqual({
      pos_coverage: {
        [plain.locations[0]!.id]: { pos_provider: null, pos_connected: false },
        [plain.locations[1]!.id]: { pos_provider: null, pos_connected: false },
      },
    });
  });

  test('admin-vendor-override: vendor_id rebinds the merchant for an internal admin, and is refused for others', async () => {
    const target = await api.seed('reports-target');
    const admin = await makeMember(api, m, ['VIEW_SALES_REPORTS']);
    expect(await coverage(admin.token, `?vendor_id=${target.merchant.id}`)).toMatchObject({ status: 403 });
    await api.deps.db.updateTable('users').set({ is_global_admin: true }).where('id', '=', admin.userId).execute();
    expect((await coverage(admin.token, `?vendor_id=${target.merchant.id}`)).body).toEqual({
      pos_coverage: {
        [target.locations[0]!.id]: { pos_provider: 'firstparty', pos_connected: true },
        [target.locations[1]!.id]: { pos_provider: 'firstparty', pos_connected: true },
      },
    });
  });

  test('a failed lookup is an error response, never `pos_connected: false`', async () => {
    const broken = await api.seed('reports-broken');
    await api.deps.db.updateTable('merchants').set({ pos_provider: null }).where('id', '=', broken.merchant.id).execute();
    const token = await api.ownerToken(broken);
    const schema = broken.merchant.tenant_database;
    await sql`alter schema ${sql.id(schema)} rename to ${sql.id(`${schema}_x`)}`.execute(api.deps.db);
    try {
      const r = await coverage(token);
      expect(r).toMatchObject({ status: 500, body: { message: 'An unexpected error occurred' } });
      expect(r.text).not.toContain('pos_connected');
    } finally {
      await sql`alter schema ${sql.id(`${schema}_x`)} rename to ${sql.id(schema)}`.execute(api.deps.db);
    }
    expect((await coverage(token)).status).toBe(200);
    // The service itself: a lookup against a store that cannot answer rejects.
    const gone = bindTenant(api.deps.db, 't_missing_schema_0000');
    const everything = { permissions: FULL_PERMISSIONS, locationIds: new Set<string>(), allLocations: true };
    await expect(posCoverage({ tdb: gone, merchant: { pos_provider: null }, access: everything })).rejects.toThrow();
    await expect(posCoverage({ tdb: gone, merchant: { pos_provider: 'firstparty' }, access: everything })).rejects.toThrow();
  });
});
