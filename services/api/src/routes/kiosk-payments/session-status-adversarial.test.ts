import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import { capturePayment } from '@pos/core/payments/capture-payment';
import { SESSION_STATUS_CACHE_MS } from '@pos/core/payments/session-status-cache';
import { startCardBSimulator, type CardBSimulator } from '@pos/providers/payments';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { providerHop, type ProviderHop } from '../../testing/provider-hop.ts';

// The kiosk polls `GET /kiosk/payment/session-status` about every second while the customer pays: one
// provider call serves the polls of a short window, and never an answer about another attempt or state
// (docs/decisions.md "Online and table ordering robustness"). Real PostgreSQL, Redis, and the card-b
// simulator behind a real HTTP hop that counts the session reads.
let cardB: CardBSimulator;
let hop: ProviderHop;
let api: TestApi;
let m: DemoSeedResult;
let kiosk: string;
const sessionReads: string[] = [];
const CREDS = { CARD_B_CLIENT_ID: 'kiosk-poll', CARD_B_CLIENT_SECRET: 'kiosk-poll-secret' };

beforeAll(async () => {
  cardB = startCardBSimulator({ clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET });
  hop = providerHop(cardB.url, async (r) => {
    if (r.method === 'GET' && r.path.startsWith('/ecr/v1/sessions/')) sessionReads.push(decodeURIComponent(r.path.slice('/ecr/v1/sessions/'.length)));
    return r.forward();
  });
  api = await createTestApi({ env: { ...CREDS, CARD_B_BASE_URL: hop.url } });
  m = await api.seed('kpoll');
  kiosk = await api.deviceToken(m, 'kiosk');
}, 60_000);
afterAll(async () => {
  await api.close();
  hop.stop();
  await cardB.stop();
});

const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);
const create = (body: unknown) => api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body });
const status = async (key: string) => (await api.call('GET', `/api/kiosk/payment/session-status?idempotency_key=${encodeURIComponent(key)}`, { token: kiosk, deviceKey: true })).body.data;
const readsOf = (key: string) => sessionReads.filter((k) => k === key).length;
const order = () => ({ lines: [{ item_id: m.items[0]!.id, qty: 1 }] });

describe('session-status polls and the provider', () => {
  test('ten polls within the window make one provider call; after the window the payment is asked again', async () => {
    const t = (await create(order())).body.data;
    expect(t.status).toBe('Awaiting Payment');
    for (let i = 0; i < 10; i++) expect(await status(t.idempotency_key)).toMatchObject({ status: 'Awaiting Payment', provider_status: 'processing' });
    expect(readsOf(t.idempotency_key)).toBe(1);
    await cardB.complete(t.idempotency_key);
    await Bun.sleep(SESSION_STATUS_CACHE_MS + 100);
    expect(await status(t.idempotency_key)).toMatchObject({ status: 'Awaiting Payment', provider_status: 'succeeded' });
    expect(readsOf(t.idempotency_key)).toBe(2);
    // Captured (once): the status comes from the database, without the provider.
    const deps = { tdb: tdb(), tenantDatabase: m.merchant.tenant_database, redis: api.deps.redis, providers: api.deps.payments, log: api.deps.log, now: () => new Date() };
    expect((await capturePayment(deps, t.id, { kind: 'poll' })).status).toBe('Complete');
    expect((await capturePayment(deps, t.id, { kind: 'poll' })).status).toBe('Complete');
    expect(await status(t.idempotency_key)).toMatchObject({ status: 'Complete', provider_status: null });
    expect(readsOf(t.idempotency_key)).toBe(3);
    const row = await tdb().selectFrom('transactions').select(['status', 'receipt_no']).where('id', '=', t.id).executeTakeFirstOrThrow();
    expect([row.status, typeof row.receipt_no]).toEqual(['Complete', 'number']);
  });

  test('a declined attempt\'s answer is never served for the retry: the new attempt is asked at once', async () => {
    const t = (await create(order())).body.data;
    await cardB.decline(t.idempotency_key);
    expect(await status(t.idempotency_key)).toMatchObject({ provider_status: 'failed' });
    const retry = await create({ transaction_id: t.id });
    expect(retry.status).toBe(200);
    const key = retry.body.data.idempotency_key as string;
    expect(key).not.toBe(t.idempotency_key);
    // Within the first answer's window, by either key: the new session is asked, not the decline served.
    expect(await status(key)).toMatchObject({ status: 'Awaiting Payment', provider_status: 'processing' });
    expect(await status(t.idempotency_key)).toMatchObject({ idempotency_key: key, provider_status: 'processing' });
    expect(readsOf(key)).toBe(1);
  });
});
