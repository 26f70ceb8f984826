import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import { startCardBSimulator, type CardBSimulator } from '@pos/providers/payments';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { kioskCardBPayment } from '../../testing/card-b-events.ts';

// The back-office webhook log: a merchant's own events, detail, and replay of a failed one.
let cardB: CardBSimulator;
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let kiosk: string;
let owner: string;
let otherOwner: string;
const IP = '10.20.30.40';
const CREDS = { CARD_B_CLIENT_ID: 'wl-test', CARD_B_CLIENT_SECRET: 'wl-test-secret' };

beforeAll(async () => {
  cardB = startCardBSimulator({ clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET });
  api = await createTestApi({ env: { ...CREDS, CARD_B_BASE_URL: cardB.url, CARD_B_WEBHOOK_IPS: IP } });
  m = await api.seed('wlog');
  other = await api.seed('wlog-other');
  kiosk = await api.deviceToken(m, 'kiosk');
  owner = await api.ownerToken(m);
  otherOwner = await api.ownerToken(other);
});
afterAll(async () => {
  await api.close();
  await cardB.stop();
});

const create = async () => {
  const r = await api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body: { lines: [{ item_id: m.items[0]!.id, qty: 1 }] } });
  expect(r.status).toBe(200);
  await cardB.complete(r.body.data.idempotency_key); // frees the simulated terminal; no webhook from it here
  return r.body.data as { id: string; order_no: number; total: number };
};
const payment = (orderNo: number) => kioskCardBPayment(m, { order_no: orderNo, total: 280 });

describe('/back-office/webhook-logs', () => {
  test('a failed event is listed, shown, replayed once it can succeed, and another merchant never sees it', async () => {
    const first = await create();
    // The provider reports the next order before it exists here: stored as failed.
    const early = payment(first.order_no + 1);
    expect((await api.call('POST', '/api/card-b-webhook/BE/1796', { rawBody: early, ip: IP })).status).toBe(200);
    const list = await api.call('GET', '/api/back-office/webhook-logs/datatable?provider=card-b&status=failed', { token: owner });
    expect(list.status).toBe(200);
    const row = list.body.data.find((r: { event_id: string }) => r.event_id === JSON.parse(early).EventData.TransactionId);
    expect(row).toMatchObject({ provider: 'card-b', type: 'card_b_webhook', status: 'failed', error: 'transaction_not_found', occurrences: 1, event_type: 'TRANSACTION_PAYMENT_CREATED' });

    const detail = await api.call('GET', `/api/back-office/webhook-logs/${row.id}`, { token: owner });
    expect(detail.body.data).toMatchObject({ id: row.id, payload: JSON.parse(early), fields: { event_type_id: 1796, merchant_trns: `${m.locations[0]!.id}:${first.order_no + 1}` } });

    // Any provider the log holds filters (before: only card-a, card-b and platform-a; delivery-a was a 422).
    const none = await api.call('GET', '/api/back-office/webhook-logs/datatable?provider=delivery-a', { token: owner });
    expect([none.status, none.body.data.every((r: { provider: string }) => r.provider === 'delivery-a')]).toEqual([200, true]);
    expect((await api.call('GET', '/api/back-office/webhook-logs/datatable?provider=Not%20a%20provider', { token: owner })).status).toBe(422);

    // Another merchant: not listed, 404 on detail and replay.
    const theirs = await api.call('GET', '/api/back-office/webhook-logs/datatable', { token: otherOwner });
    expect(theirs.body.data.some((r: { id: string }) => r.id === row.id)).toBe(false);
    expect((await api.call('GET', `/api/back-office/webhook-logs/${row.id}`, { token: otherOwner })).status).toBe(404);
    expect((await api.call('POST', `/api/back-office/webhook-logs/${row.id}/replay`, { token: otherOwner })).status).toBe(404);

    const second = await create();
    expect(second.order_no).toBe(first.order_no + 1);
    const replayed = await api.call('POST', `/api/back-office/webhook-logs/${row.id}/replay`, { token: owner });
    expect(replayed).toMatchObject({ status: 200, body: { data: { status: 'processed' } } });
    expect((await bindTenant(api.deps.db, m.merchant.tenant_database).selectFrom('transactions').select('status').where('id', '=', second.id).executeTakeFirstOrThrow()).status).toBe('Complete');
    expect((await api.call('GET', `/api/back-office/webhook-logs/${row.id}`, { token: owner })).body.data).toMatchObject({ status: 'processed', occurrences: 1, error: null });

    // Only failed events replay.
    const again = await api.call('POST', `/api/back-office/webhook-logs/${row.id}/replay`, { token: owner });
    expect(again).toMatchObject({ status: 409, body: { reason: 'not_failed' } });
  });

  test('without a token: 401', async () => {
    expect((await api.call('GET', '/api/back-office/webhook-logs/datatable')).status).toBe(401);
  });
});
