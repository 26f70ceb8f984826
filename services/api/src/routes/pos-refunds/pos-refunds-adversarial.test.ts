import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { businessDate } from '@pos/domain/business-day/business-day';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { call, escalate, line, sell, signIn, type Register } from '../pos-tills/register-test-support.ts';

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
