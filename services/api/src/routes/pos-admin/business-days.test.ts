import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { FIRST_PARTY_POS_REQUIRED } from '@pos/core/pos/first-party';
import { registerRequiresSigning } from '@pos/core/reports/fiscal-mandate';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';
import { runQueuedWorkEvents } from '../pos-tills/register-test-support.ts';
import { insertRefund, insertSale, ISO, nothing, registerSession, sellThroughApi, tdbOf, today, yesterday } from './pos-admin.test-support.ts';

let api: TestApi;
let m: DemoSeedResult;
let owner: string;
let saleTx: string;

const loc0 = () => m.locations[0]!.id;
const loc1 = () => m.locations[1]!.id;
const call = (path: string, token = owner) => api.call('GET', `/api/back-office/pos/${path}`, { token });

/** Z report JSON as the register stores it at close (decimal major units); the back office renders it verbatim. */
const Z_REPORT = {
  report_number: 1,
  turnover_z: { sales_count: 2, refunds_count: 0, gross: 15.6, refunds: 0, net: 15.6, by_vat_rate: [], by_tender: [{ label: 'Cash', amount: 15.6, count: 1 }] },
  user_z: [],
};

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('pos-days');
  owner = await api.ownerToken(m);
  const session = await registerSession(api, m, 'manager');
  // The worker signs the login's queued work-in before the first sale.
  await runQueuedWorkEvents(api, m.merchant.tenant_database);
  // 780 cash; 780 split card 500 + cash 280; 450 meal voucher
  saleTx = (await sellThroughApi(api, m, session, ['Espresso', 'Espresso', 'Croissant'], { amount_tendered: 1000 })).transaction_id;
  await sellThroughApi(api, m, session, ['Espresso', 'Espresso', 'Croissant'], { tenders: [{ method: 'card', funding: 'debit', amount: 500 }, { method: 'cash', amount_tendered: 300 }] });
  await sellThroughApi(api, m, session, ['Belgian beer'], { tenders: [{ method: 'meal_voucher', amount: 450 }] });
  await insertSale(api, m, { locationId: loc0(), total: 1000, tender: { legs: [{ kind: 'bitcoin', amount: 1000 }], rounding: 0 }, byVatRate: [{ rate: 21, net: 826, vat: 174, gross: 1000 }], businessDate: today() });
  await insertRefund(api, m, { transactionId: saleTx, locationId: loc0(), amount: 220, byVatRate: [{ rate: 6, net: 208, vat: 12, gross: 220 }], businessDate: today() });
  // A refund of a cash-rounded sale: lines 4.97, handed back 4.95 (the sale's 2 cents of rounding).
  await insertRefund(api, m, { transactionId: saleTx, locationId: loc0(), amount: 497, rounding: 2, byVatRate: [{ rate: 21, net: 411, vat: 86, gross: 497 }], businessDate: today() });
});
afterAll(() => api.close());

describe('business days', () => {
  let closedId: string;
  let openId: string;

  beforeAll(async () => {
    const tdb = tdbOf(api, m);
    // The register opened today's day with the first sale; yesterday's closed day is written here.
    openId = (await tdb.selectFrom('pos_business_days').select('id').where('location_id', '=', loc0()).where('business_date', '=', today()).executeTakeFirstOrThrow()).id;
    closedId = Bun.randomUUIDv7();
    await tdb
      .insertInto('pos_business_days')
      .values({ id: closedId, location_id: loc0(), business_date: yesterday(), status: 'closed', opened_at: new Date(Date.now() - 86_400_000), closed_at: new Date(), closed_by: null, z_report_no: 1, z_report: JSON.stringify(Z_REPORT), journal_id: null })
      .execute();
  });

  test('the day list, newest business date first, paged', async () => {
    const r = await call(`${loc0()}/business-days`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: [
        { id: openId, business_date: today(), status: 'open', z_report_no: null, opened_at: expect.stringMatching(ISO), closed_at: null },
        { id: closedId, business_date: yesterday(), status: 'closed', z_report_no: 1, opened_at: expect.stringMatching(ISO), closed_at: expect.stringMatching(ISO) },
      ],
      total: 2,
      page: 1,
      per_page: 25,
    });
    expect((await call(`${loc0()}/business-days?per_page=1&page=2`)).body).toEqual({ data: [r.body.data[1]], total: 2, page: 2, per_page: 1 });
    expect((await call(`${loc1()}/business-days`)).body).toEqual({ data: [], total: 0, page: 1, per_page: 25 });
    expect((await call(`${loc0()}/business-days?per_page=500`)).status).toBe(422);
  });

  test('the Z-report detail: the stored z_report verbatim, the day\'s sales by tender and refunds in cents', async () => {
    const closed = await call(`${loc0()}/business-days/${closedId}`);
    expect(closed.status).toBe(200);
    expect(closed.body).toEqual({
      data: {
        id: closedId,
        location_id: loc0(),
        business_date: yesterday(),
        status: 'closed',
        z_report_no: 1,
        opened_at: expect.stringMatching(ISO),
        closed_at: expect.stringMatching(ISO),
        z_report: Z_REPORT,
        sales_by_tender: [
          { label: 'Cash', amount: 0, count: 0 },
          { label: 'Card', amount: 0, count: 0 },
          { label: 'Meal voucher', amount: 0, count: 0 },
          { label: 'Gift voucher', amount: 0, count: 0 },
          { label: 'Unknown', amount: 0, count: 0 },
        ],
        refunds: { count: 0, amount: 0 },
      },
    });
    const open = await call(`${loc0()}/business-days/${openId}`);
    expect(open.body).toEqual({
      data: {
        id: openId,
        location_id: loc0(),
        business_date: today(),
        status: 'open',
        z_report_no: null,
        opened_at: expect.stringMatching(ISO),
        closed_at: null,
        z_report: null,
        sales_by_tender: [
          { label: 'Cash', amount: 1060, count: 2 },
          { label: 'Card', amount: 500, count: 1 },
          { label: 'Meal voucher', amount: 450, count: 1 },
          { label: 'Gift voucher', amount: 0, count: 0 },
          { label: 'Unknown', amount: 1000, count: 1 },
        ],
        // The cash handed back (lines 220 + 497, less the 2 cents of cash rounding). Before: 717, the lines' total.
        refunds: { count: 2, amount: 715 },
      },
    });
  });

  test('a day of another location, or an unknown one, is 404', async () => {
    const notFound = { status: 404, body: { message: 'Unable to locate the business day you requested.' } };
    expect(await call(`${loc1()}/business-days/${closedId}`)).toMatchObject(notFound);
    expect(await call(`${loc0()}/business-days/${nothing()}`)).toMatchObject(notFound);
    expect(await call(`${loc0()}/business-days/nope`)).toMatchObject(notFound);
  });
});

describe('GET /back-office/pos/{locationId}/fiscal-events', () => {
  test('exports each device\'s journal with a verification that holds, and fails after a row is tampered with', async () => {
    const r = await call(`${loc0()}/fiscal-events`);
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(1);
    const device = r.body.data[0];
    const entries = device.entries as Record<string, any>[];
    // pin-login work-in, then three signed sales
    expect(entries.map((e) => e.event_kind)).toEqual(['work_in', 'sale', 'sale', 'sale']);
    expect(device).toEqual({
      fdm_id: expect.stringMatching(/^FDM-/),
      mode: 'software',
      status: 'active',
      entries: expect.any(Array),
      verification: { ok: true, count: 4, pending: 0, failed: 0, last_seq: 4 },
    });
    expect(entries[1]).toEqual({
      id: expect.any(String),
      fdm_id: device.fdm_id,
      seq: 2,
      event_kind: 'sale',
      payload: expect.any(String),
      status: 'signed',
      sign_result: expect.objectContaining({ digitalSignature: expect.any(String), fdmRef: expect.objectContaining({ fdmId: device.fdm_id }) }),
      sign_error: null,
      prev_hash: entries[0]!.hash,
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      result_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      subject_type: 'pos_order',
      subject_id: expect.any(String),
      created_at: expect.stringMatching(ISO),
      completed_at: expect.stringMatching(ISO),
    });
    expect(JSON.parse(entries[1]!.payload)).toMatchObject({ kind: 'sale' });

    // a window of local dates narrows the entries, never the verification
    const tomorrow = new Date(Date.parse(`${today()}T12:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    expect((await call(`${loc0()}/fiscal-events?from=${tomorrow}`)).body.data[0]).toMatchObject({ entries: [], verification: { ok: true, count: 4 } });
    expect((await call(`${loc0()}/fiscal-events?from=${today()}&to=${today()}`)).body.data[0].entries).toHaveLength(4);
    expect((await call(`${loc0()}/fiscal-events?from=${today()}&to=${yesterday()}`)).status).toBe(422);
    expect((await call(`${loc0()}/fiscal-events?from=2026-02-30`)).status).toBe(422);
    expect((await call(`${loc1()}/fiscal-events`)).body).toEqual({ data: [] });

    // tamper with the second entry's payload: the export says so
    const tdb = tdbOf(api, m);
    const row = await tdb.selectFrom('fiscal_journal').selectAll().where('fdm_id', '=', device.fdm_id).where('seq', '=', 2).executeTakeFirstOrThrow();
    const tampered = row.payload.replace('"total":780', '"total":1');
    expect(tampered).not.toBe(row.payload);
    await tdb.updateTable('fiscal_journal').set({ payload: tampered }).where('id', '=', row.id).execute();
    expect((await call(`${loc0()}/fiscal-events`)).body.data[0].verification).toEqual({ ok: false, seq: 2, problem: 'altered', detail: expect.any(String) });
    await tdb.updateTable('fiscal_journal').set({ payload: row.payload }).where('id', '=', row.id).execute();
    expect((await call(`${loc0()}/fiscal-events`)).body.data[0].verification.ok).toBe(true);
  });
});

describe('GET /back-office/pos/fiscal-locations', () => {
  test('per granted location: regime, mandated (what the register enforces: every location, a Dutch one too), signing, fiscal history (which survives retirement)', async () => {
    const tdb = tdbOf(api, m);
    const nl = Bun.randomUUIDv7();
    await tdb.insertInto('locations').values({ id: nl, name: 'Zz Amsterdam', timezone: 'Europe/Amsterdam', country: 'NL', address: null, vat_no: 'NL123456789B01', est_no: '1', pos_tenders: JSON.stringify({}) }).execute();
    const r = await call('fiscal-locations');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      fiscal_locations: {
        [loc0()]: { regime: 'gks', mandated: true, signing: true, has_fiscal_history: true },
        [loc1()]: { regime: 'gks', mandated: true, signing: false, has_fiscal_history: false },
        [nl]: { regime: 'gks', mandated: true, signing: false, has_fiscal_history: false },
      },
    });

    // retire loc0's module: no longer signing, history stays; enrol and retire one at the Dutch location
    const fdm = (await call(`${loc0()}/fdm-devices`)).body.data[0];
    expect((await api.call('PUT', `/api/back-office/pos/${loc0()}/fdm-devices/${fdm.id}`, { token: owner, body: { status: 'retired' } })).status).toBe(200);
    const nlFdm = await api.call('POST', `/api/back-office/pos/${nl}/fdm-devices`, { token: owner, body: { fdm_id: `FDM-NL-${nl.slice(-6)}`, mode: 'software' } });
    expect(nlFdm.status).toBe(201);
    expect((await call('fiscal-locations')).body.fiscal_locations[nl]).toEqual({ regime: 'gks', mandated: true, signing: true, has_fiscal_history: false });
    await api.call('PUT', `/api/back-office/pos/${nl}/fdm-devices/${nlFdm.body.data.id}`, { token: owner, body: { status: 'retired' } });
    expect((await call('fiscal-locations')).body).toEqual({
      fiscal_locations: {
        [loc0()]: { regime: 'gks', mandated: true, signing: false, has_fiscal_history: true },
        [loc1()]: { regime: 'gks', mandated: true, signing: false, has_fiscal_history: false },
        [nl]: { regime: 'gks', mandated: true, signing: false, has_fiscal_history: false },
      },
    });
  });

  test('only granted locations; `{}` for a member with none; 403 without VIEW_POS_REPORTS (in the service)', async () => {
    const one = await makeMember(api, m, ['VIEW_POS_REPORTS'], { locationIds: [loc1()] });
    expect((await call('fiscal-locations', one.token)).body).toEqual({ fiscal_locations: { [loc1()]: { regime: 'gks', mandated: true, signing: false, has_fiscal_history: false } } });
    const none = await makeMember(api, m, ['VIEW_POS_REPORTS'], { locationIds: [] });
    const empty = await call('fiscal-locations', none.token);
    expect(empty.status).toBe(200);
    expect(empty.text).toBe('{"fiscal_locations":{}}');
    const sales = await makeMember(api, m, ['VIEW_SALES_REPORTS', 'VIEW_KITCHEN_REPORTS', 'VIEW_POS_CONFIGURATION']);
    expect(await call('fiscal-locations', sales.token)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
  });

  test('first-party-pos: 403 for a merchant without the marker', async () => {
    const other = await api.seed('pos-days-nomarker');
    await api.deps.db.updateTable('merchants').set({ pos_provider: null }).where('id', '=', other.merchant.id).execute();
    expect(await call('fiscal-locations', await api.ownerToken(other))).toMatchObject({ status: 403, body: { message: FIRST_PARTY_POS_REQUIRED } });
  });
});

describe('registerRequiresSigning', () => {
  test('every location, whatever its country or date: the register refuses to sell unsigned anywhere (422 fiscal_not_enrolled)', () => {
    for (const [country, timezone, at] of [['BE', 'Europe/Brussels', '2026-06-30T23:30:00+02:00'], ['NL', 'Europe/Amsterdam', '2027-01-01T00:00:00Z']] as const)
      expect(registerRequiresSigning({ country, timezone }, new Date(at))).toBe(true);
  });
});
