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
  test('a sale refunded line by line gives back exactly its VAT per rate; the sales report and the X report net to 0', async () => {
    // Two espressos on two lines (2 x 2.80 at 21 %): the sale's group is 5.60 with VAT 0.97 (per rate group).
    const sale = await sell(manager, [line(manager, 'Espresso'), line(manager, 'Espresso')], { amount_tendered: 560 });
    expect(sale.body.totals.by_vat_rate).toEqual([{ rate: 21, net: 463, vat: 97, gross: 560 }]);
    const [a, b] = sale.body.lines as { uuid: string }[];
    const first = await refund({ transaction_id: sale.transaction_id, mode: 'partial', line_uuids: [a!.uuid] });
    expect(first.status).toBe(200);
    expect(first.body.refund.by_vat_rate).toEqual([{ rate: 21, net: 231, vat: 49, gross: 280 }]);
    const second = await refund({ transaction_id: sale.transaction_id, mode: 'full' });
    expect(second.status).toBe(200);
    // 0.49 + 0.49 would hand back 0.98 of VAT on a sale that carried 0.97.
    expect(second.body.refund.by_vat_rate).toEqual([{ rate: 21, net: 232, vat: 48, gross: 280 }]);

    const day = businessDate(new Date(), 'Europe/Brussels');
    const report = await api.call('GET', `/api/back-office/reports/sales?from=${day}&to=${day}`, { token: owner });
    expect(report.status).toBe(200);
    expect(report.body.data.by_vat_rate).toEqual([{ rate: 21, net: 0, vat: 0, gross: 0 }]);
    const x = await call(manager, 'GET', '/pos/business-day/x-report');
    expect(x.status).toBe(200);
    expect(JSON.stringify(x.body)).not.toContain('-0.01');
  });
});
