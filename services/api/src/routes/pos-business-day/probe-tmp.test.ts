import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { call, line, sell, signIn, type Register } from '../pos-tills/register-test-support.ts';

let api: TestApi; let r: Register; let cashier: Register;
beforeAll(async () => {
  api = await createTestApi();
  const m = await api.seed(`probe-f-${crypto.randomUUID().slice(0, 6)}`);
  r = await signIn(api, m, 'manager', 0);
  cashier = await signIn(api, m, 'cashier', 1);
});
afterAll(() => api.close());

test('probe', async () => {
  const till = (await call(r, 'POST', '/pos/tills', { mode: 'register_drawer', opening_float: 1000 })).body;
  const s = await sell(r, [line(r, 'Espresso', 2)], { amount_tendered: 560 });
  const probes: [string, string, unknown][] = [
    ['POST', '/pos/business-day/close', { approval_token: 123 }],
    ['POST', '/pos/business-day/close', { foo: 1 }],
    ['POST', '/pos/business-day/close', []],
    ['POST', '/pos/refunds', { transaction_id: s.transaction_id, mode: 'FULL' }],
    ['POST', '/pos/refunds', { transaction_id: s.transaction_id, mode: 'partial', line_uuids: 'x' }],
    ['POST', '/pos/refunds', { transaction_id: s.transaction_id, mode: 'partial', line_uuids: [] }],
    ['POST', '/pos/refunds', { transaction_id: 5, mode: 'full' }],
    ['POST', '/pos/refunds', { transaction_id: s.transaction_id, mode: 'full', extra: 1 }],
    ['POST', `/pos/tills/${till.id}/movements`, { type: 'paid_in', amount: 0 }],
    ['POST', `/pos/tills/${till.id}/movements`, { type: 'paid_in', amount: 1.5 }],
    ['POST', `/pos/tills/${till.id}/movements`, { type: 'drawer_open_no_sale', amount: 500 }],
    ['GET', '/pos/business-day/x-report?foo=1', undefined],
  ];
  for (const [m, p, b] of probes) {
    const res = await call(r, m, p, b);
    console.log(m, p.replace(/[0-9a-f-]{36}/g, ':id'), JSON.stringify(b), '=>', res.status, res.text.slice(0, 250));
  }
  const c = await call(cashier, 'GET', '/pos/business-day/x-report');
  console.log('cashier x', c.status, c.text.slice(0, 200));
  const c2 = await call(cashier, 'POST', '/pos/business-day/close', {});
  console.log('cashier close', c2.status, c2.text.slice(0, 200));
});
