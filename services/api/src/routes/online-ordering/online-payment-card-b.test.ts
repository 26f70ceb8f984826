import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startCardBSimulator, type CardBSimulator } from '@pos/providers/payments';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

// The legacy card-b hosted checkout (spec 3 "Provider choice" 3): reachable only when the default
// provider is overridden away from card-a; verify reads the order's transactions by orderCode.
let cardB: CardBSimulator;
let api: TestApi;
let a: DemoSeedResult;
const CREDS = { CARD_B_CLIENT_ID: 'online-legacy', CARD_B_CLIENT_SECRET: 'online-legacy-secret' };

beforeAll(async () => {
  cardB = startCardBSimulator({ clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET });
  api = await createTestApi({ env: { ...CREDS, CARD_B_BASE_URL: cardB.url, PAYMENT_DEFAULT_PROVIDER: 'card-b' } });
  a = await api.seed('opb-a');
}, 60_000);
afterAll(async () => {
  await api.close();
  await cardB.stop();
});

describe('legacy card-b online path', () => {
  test('{orderCode, redirectUrl}, then verify captures once the customer paid', async () => {
    const loc = a.online_ordering.location_id;
    const r = await api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc}/payment`, { body: { lines: [{ item_id: a.items[0]!.id, qty: 1 }] } });
    expect(r.status).toBe(200);
    // Read before matching: toMatchObject with asymmetric matchers may rewrite the received object.
    const orderCode: string = r.body.data.payment.orderCode;
    expect(typeof orderCode).toBe('string');
    expect(r.body.data).toMatchObject({ provider: 'card-b', total: a.items[0]!.unit_price, payment: { orderCode: expect.any(String), redirectUrl: expect.any(String) } });
    expect(Object.keys(r.body.data.payment).sort()).toEqual(['orderCode', 'redirectUrl']);
    const id = r.body.data.transaction_id;
    const verify = () => api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc}/verify-payment`, { body: { transaction_id: id } });
    expect((await verify()).body.data.status).toBe('Awaiting Payment');
    await cardB.payOrder(orderCode);
    const done = await verify();
    expect(done.body.data).toMatchObject({ transaction_id: id, status: 'Complete', receipt_no: expect.any(Number) });
    const row = await bindTenant(api.deps.db, a.merchant.tenant_database).selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'Complete', payment_provider: 'card-b', channel: 'online_ordering' });
    expect(row.payment_snapshot).toMatchObject({ orderCode });
  });

  test('card-b unreachable while an order is verified: 503 provider_error from the storefront and the back office, the order left as it was', async () => {
    const loc = a.online_ordering.location_id;
    const r = await api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc}/payment`, { body: { lines: [{ item_id: a.items[0]!.id, qty: 1 }] } });
    expect(r.status).toBe(200);
    const id: string = r.body.data.transaction_id;
    const owner = await api.ownerToken(a);
    // Last in this file: the simulator is gone from here on.
    await cardB.stop();
    const unavailable = { status: 503, body: { message: 'The payment provider could not be reached. Try again.' } };
    // Before: 500 (the client's network error), or card-b's own status (401, 404) answered as the platform's.
    expect(await api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc}/verify-payment`, { body: { transaction_id: id } })).toMatchObject(unavailable);
    expect(await api.call('POST', `/api/back-office/transactions/${id}/verify-payment-status`, { token: owner })).toMatchObject(unavailable);
    const row = await bindTenant(api.deps.db, a.merchant.tenant_database).selectFrom('transactions').select(['status', 'receipt_no']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row).toEqual({ status: 'Awaiting Payment', receipt_no: null });
  });
});
