import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { businessDate } from '@pos/domain/business-day/business-day';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { call, escalate, journalOf, line, sell, signIn, type Register } from '../pos-tills/register-test-support.ts';
import { tillCash } from '@pos/core/pos/tills/till-queries';

// Money consistency across channels (a tester's pass): the register's refunds against its sales and reports.
let api: TestApi;
let manager: Register;
let owner: string;

beforeAll(async () => {
  api = await createTestApi();
  const m = await api.seed('refunds-adv');
  manager = await signIn(api, m, 'manager', 0);
  owner = await api.ownerToken(m);
  expect((await call(manager, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 5000 })).status).toBe(200);
});
afterAll(() => api.close());

const refund = (body: Record<string, unknown>) => call(manager, 'POST', '/pos/refunds', body);

describe('POST /pos/refunds: VAT of partial refunds', () => {
  test('each refund carries the VAT of its own lines, as its signed ticket does; the reports add the tickets up as signed', async () => {
    // Two espressos on two lines (2 x 2.80 at 21 %): the sale's group is 5.60 with VAT 0.97 (per rate group).
    const sale = await sell(manager, [line(manager, 'Espresso'), line(manager, 'Espresso')], { amount_tendered: 560 });
    expect(sale.body.totals.by_vat_rate).toEqual([{ rate: 21, net: 463, vat: 97, gross: 560 }]);
    const [a] = sale.body.lines as { uuid: string }[];
    const first = await refund({ transaction_id: sale.transaction_id, mode: 'partial', line_uuids: [a!.uuid] });
    expect(first.status).toBe(200);
    const second = await refund({ transaction_id: sale.transaction_id, mode: 'full' });
    expect(second.status).toBe(200);
    // The fiscal module computes each ticket's VAT per label from that ticket's lines: 0.49 on each refund.
    expect([first.body.refund.by_vat_rate, second.body.refund.by_vat_rate]).toEqual([
      [{ rate: 21, net: 231, vat: 49, gross: 280 }],
      [{ rate: 21, net: 231, vat: 49, gross: 280 }],
    ]);
    // So a sale refunded line by line nets -0.01 of VAT on a gross of 0: the sum of the signed tickets.
    const day = businessDate(new Date(), 'Europe/Brussels');
    const report = await api.call('GET', `/api/back-office/reports/sales?from=${day}&to=${day}`, { token: owner });
    expect(report.status).toBe(200);
    expect(report.body.data.by_vat_rate).toEqual([{ rate: 21, net: 1, vat: -1, gross: 0 }]);
    expect(report.body.data.totals).toMatchObject({ gross: 560, refunds: 560, net: 0 });
  });
});

describe('POST /pos/refunds: a cash-rounded sale hands back what was paid', () => {
  const discounted = (cents: number) => line(manager, 'Espresso', 1, { discount: { type: 'amount', value: cents } });
  const cashOut = async (tillId: string) => (await tillCash(manager.tdb, { id: tillId, opening_float: 0 })).refunds_cash;
  const financials = async (refundId: string) => JSON.parse((await journalOf(manager, 'pos_refund', refundId)).at(-1)!.payload).financials.map((f: any) => [f.type, f.amountType, f.amount]);

  test('4.97 paid 4.95 in cash: a full refund hands back 4.95, signs CASH -4.95 and ROUNDING -0.02, and takes 4.95 out of the till', async () => {
    // Espresso 2.80 - 0.03 = 2.77, Croissant 2.20: 4.97, cash rounded down to 4.95.
    const sale = await sell(manager, [discounted(3), line(manager, 'Croissant')], { amount_tendered: 495 });
    expect(sale.body.totals.total).toBe(497);
    const r = await refund({ transaction_id: sale.transaction_id, mode: 'full' });
    expect(r.status).toBe(200);
    expect(r.body.refund).toMatchObject({ amount: 495, rounding: 2 });
    expect(await financials(r.body.refund.id)).toEqual([['CASH', 'PAYMENT', -495], ['CASH', 'ROUNDING', -2]]);
    const row = await manager.tdb.selectFrom('pos_refunds').select(['amount', 'rounding', 'till_id']).where('id', '=', r.body.refund.id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ amount: 497, rounding: 2 });
    const before = await cashOut(row.till_id!);
    expect(before).toBeGreaterThanOrEqual(495);
  });

  test('line by line, the refunds of a sale rounded down add up to what was paid (2.77 then 2.18), and the till pays out 4.95', async () => {
    const till = await call(manager, 'GET', '/pos/tills/current');
    const out0 = await cashOut(till.body.id);
    const sale = await sell(manager, [discounted(3), line(manager, 'Croissant')], { amount_tendered: 500 });
    const [a, b] = sale.body.lines as { uuid: string }[];
    const first = await refund({ transaction_id: sale.transaction_id, mode: 'partial', line_uuids: [a!.uuid] });
    const second = await refund({ transaction_id: sale.transaction_id, mode: 'partial', line_uuids: [b!.uuid] });
    expect([first.status, second.status]).toEqual([200, 200]);
    expect([first.body.refund.amount, first.body.refund.rounding, second.body.refund.amount, second.body.refund.rounding]).toEqual([277, 0, 218, 2]);
    expect(await cashOut(till.body.id)).toBe(out0 + 495);
  });

  test('a sale rounded up (4.98 paid 5.00): the refund completing it hands back the 2 cents paid above the lines', async () => {
    const sale = await sell(manager, [discounted(2), line(manager, 'Croissant')], { amount_tendered: 500 });
    expect(sale.body.totals.total).toBe(498);
    const [a] = sale.body.lines as { uuid: string }[];
    const first = await refund({ transaction_id: sale.transaction_id, mode: 'partial', line_uuids: [a!.uuid] });
    const rest = await refund({ transaction_id: sale.transaction_id, mode: 'full' });
    expect([first.body.refund.amount, rest.body.refund.amount, rest.body.refund.rounding]).toEqual([278, 222, -2]);
    expect(await financials(rest.body.refund.id)).toEqual([['CASH', 'PAYMENT', -222], ['CASH', 'ROUNDING', 2]]);
  });

  test('a split sale (card 2.00, cash 2.97 paid 2.95) refunded in full hands back 4.95: the card share is exact, the cash share was rounded', async () => {
    await manager.tdb.updateTable('locations').set({ pos_tenders: JSON.stringify({ enabled: ['card'], issuers: { card_debit: [], card_credit: [], meal_voucher: [], gift_voucher: [] } }) }).where('id', '=', manager.m.locations[0]!.id).execute();
    const sale = await sell(manager, [discounted(3), line(manager, 'Croissant')], { tenders: [{ method: 'card', funding: 'debit', amount: 200 }, { method: 'cash' }] });
    const r = await refund({ transaction_id: sale.transaction_id, mode: 'full' });
    expect(r.status).toBe(200);
    expect(r.body.refund).toMatchObject({ amount: 495, rounding: 2 });
  });
});
