import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ManualClock } from '@pos/kernel';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { call, line, signIn, type Register } from '../pos-tills/register-test-support.ts';

// The Z close under races: two closes at once, a sale or a refund arriving while the day closes.
// Whatever wins, the Z must hold exactly what the books hold for that date, signed once.

let api: TestApi;
let clock: ManualClock;
let m: DemoSeedResult;
let a: Register;
let b: Register;

beforeAll(async () => {
  // 10:00 in Brussels on 2026-11-20.
  clock = new ManualClock(new Date('2026-11-20T09:00:00.000Z'));
  api = await createTestApi({ clock });
  m = await api.seed(`bd-adv-${crypto.randomUUID().slice(0, 8)}`);
  a = await signIn(api, m, 'manager', 0);
  b = await signIn(api, m, 'manager', 1);
});
afterAll(() => api.close());

/** The next day (staff tokens last 12 hours: both registers sign in again). */
async function nextDay() {
  clock.advance(24 * 3600_000);
  a = await signIn(api, m, 'manager', 0);
  b = await signIn(api, m, 'manager', 1);
}
const dayRow = (date: string) => a.tdb.selectFrom('pos_business_days').selectAll().where('business_date', '=', date).executeTakeFirst();
const zEntries = (dayId: string) => a.tdb.selectFrom('fiscal_journal').select(['seq', 'status']).where('subject_type', '=', 'pos_business_day').where('subject_id', '=', dayId).execute();

async function openOrder(r: Register): Promise<string> {
  const id = crypto.randomUUID();
  expect((await call(r, 'PUT', `/pos/orders/${id}`, { lines: [line(r, 'Espresso')] })).status).toBe(200);
  return id;
}

describe('Z close races', () => {
  test('two registers closing the same day at once: one Z (number 1, signed once), the other 409 already_closed', async () => {
    const id = await openOrder(a);
    expect((await call(a, 'POST', `/pos/orders/${id}/settle`, { amount_tendered: 280 })).status).toBe(200);
    const [x, y] = await Promise.all([call(a, 'POST', '/pos/business-day/close'), call(b, 'POST', '/pos/business-day/close')]);
    const results = [x, y].sort((p, q) => p.status - q.status);
    expect(results.map((r) => r.status)).toEqual([200, 409]);
    expect(results[1]!.body).toEqual({ message: 'This business day is already closed: the next one starts at local midnight.', reason: 'already_closed', business_date: '2026-11-20' });
    expect(results[0]!.body.z_report).toMatchObject({ report_number: 1, turnover_z: { sales_count: 1, gross: 2.8 } });
    const day = (await dayRow('2026-11-20'))!;
    expect(day.z_report_no).toBe(1);
    expect((await zEntries(day.id)).map((e) => e.status)).toEqual(['signed']);
  });

  test('a sale racing the Z close: either counted in the Z or refused with business_day_closed, never signed outside it', async () => {
    for (let i = 0; i < 4; i++) {
      await nextDay();
      const date = new Date(clock.now().getTime()).toISOString().slice(0, 10);
      const warm = await openOrder(a);
      expect((await call(a, 'POST', `/pos/orders/${warm}/settle`, { amount_tendered: 280 })).status).toBe(200);
      const id = await openOrder(b);
      const [settle, close] = await Promise.all([call(b, 'POST', `/pos/orders/${id}/settle`, { amount_tendered: 280 }), call(a, 'POST', '/pos/business-day/close')]);
      expect(close.status).toBe(200);
      const booked = await a.tdb.selectFrom('pos_transactions').select('id').where('business_date', '=', date).execute();
      if (settle.status === 200) {
        expect(booked.length).toBe(2);
      } else {
        expect([settle.status, settle.body.reason]).toEqual([409, 'business_day_closed']);
        expect(booked.length).toBe(1);
        expect((await call(b, 'GET', `/pos/orders/${id}`)).body.state).toBe('OPEN');
      }
      expect(close.body.z_report.turnover_z.sales_count).toBe(booked.length);
      expect(close.body.z_report.report_number).toBe(i + 2);
    }
  });

  test('a refund racing the Z close: the open till holds the close back (409 open_tills), the refund goes through', async () => {
    await nextDay();
    const till = await call(a, 'POST', '/pos/tills', { mode: 'staff_wallet', opening_float: 1000 });
    expect(till.status).toBe(200);
    const id = await openOrder(a);
    const sale = await call(a, 'POST', `/pos/orders/${id}/settle`, { amount_tendered: 280 });
    // The close refuses while the wallet till is open: the refund (which needs the open till) goes first or not at all.
    const [refund, close] = await Promise.all([call(a, 'POST', '/pos/refunds', { transaction_id: sale.body.transaction_id, mode: 'full' }), call(b, 'POST', '/pos/business-day/close')]);
    expect(refund.status).toBe(200);
    expect([close.status, close.body.reason]).toEqual([409, 'open_tills']);
  });
});

describe('VAT of refunds', () => {
  test('a sale refunded line by line: each refund carries its own lines\' VAT, as its signed ticket does; the cent shows in the day', async () => {
    // A merchant of its own: the X report below is of its only business day.
    const a = await signIn(api, await api.seed(`bd-adv-vat-${crypto.randomUUID().slice(0, 8)}`), 'manager', 0);
    expect((await call(a, 'POST', '/pos/tills', { mode: 'staff_wallet', opening_float: 1000 })).status).toBe(200);
    // Two lines of 2.80 at 21 %: the sale's VAT is that of 5.60 (0.97), each line alone 0.49.
    const id = crypto.randomUUID();
    const [one, two] = [line(a, 'Espresso'), line(a, 'Espresso')];
    expect((await call(a, 'PUT', `/pos/orders/${id}`, { lines: [one, two] })).body.totals.by_vat_rate).toEqual([{ rate: 21, net: 463, vat: 97, gross: 560 }]);
    const sale = await call(a, 'POST', `/pos/orders/${id}/settle`, { amount_tendered: 560 });
    expect(sale.status).toBe(200);

    const first = await call(a, 'POST', '/pos/refunds', { transaction_id: sale.body.transaction_id, mode: 'partial', line_uuids: [one.uuid] });
    expect(first.status).toBe(200);
    expect(first.body.refund.by_vat_rate).toEqual([{ rate: 21, net: 231, vat: 49, gross: 280 }]);
    const second = await call(a, 'POST', '/pos/refunds', { transaction_id: sale.body.transaction_id, mode: 'full' });
    expect(second.status).toBe(200);
    expect(second.body.refund.by_vat_rate).toEqual([{ rate: 21, net: 231, vat: 49, gross: 280 }]);

    const x = await call(a, 'GET', '/pos/business-day/x-report');
    expect(x.status).toBe(200);
    expect(x.body.turnover_x).toMatchObject({ sales_count: 1, refunds_count: 2, gross: 5.6, refunds: 5.6, net: 0 });
    expect(x.body.turnover_x.by_vat_rate).toEqual([{ rate: 21, net: 0.01, vat: -0.01, gross: 0 }]);
  });
});
