import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import { startCardASimulator, type CardASimulator } from '@pos/providers/payments';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { reportInPersonProvider } from '../../testing/in-person-provider.ts';

// card-a webhooks: signatures over the raw body, the 300 s tolerance, claims, tenant from the reader.
let cardA: CardASimulator;
let api: TestApi;
let m: DemoSeedResult;
let kiosk: string;
const SECRET = 'whsec_default_0123456789';
const NL_SECRET = 'whsec_netherlands_0123456789';
const CREDS = { CARD_A_SECRET_KEY: 'sk_test_cawebhook' };

beforeAll(async () => {
  cardA = startCardASimulator({ secretKey: CREDS.CARD_A_SECRET_KEY });
  api = await createTestApi({ env: { ...CREDS, CARD_A_BASE_URL: cardA.url, CARD_A_WEBHOOK_SECRET: SECRET, CARD_A_WEBHOOK_SECRETS: JSON.stringify({ nl: NL_SECRET }) } });
  m = await api.seed('cahook');
  kiosk = await api.deviceToken(m, 'kiosk');
  await reportInPersonProvider(tdb(), 'card-a');
});
afterAll(async () => {
  await api.close();
  await cardA.stop();
});

const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);
const now = () => Math.floor(Date.now() / 1000);
/** The provider's header, computed here independently of the verifier. */
const sign = (raw: string, secret = SECRET, t = now()) => `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${raw}`).digest('hex')}`;
const post = (raw: string, signature: string | null, country = 'BE') =>
  api.call('POST', `/api/card-a-webhook/${country}`, { rawBody: raw, headers: signature ? { 'card-a-signature': signature } : {} });
const logOf = (eventId: string) => api.deps.db.selectFrom('webhook_logs').selectAll().where('provider', '=', 'card-a').where('event_id', '=', eventId).orderBy('created_at').execute();
const txn = (id: string) => tdb().selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const captures = async (id: string) => (await tdb().selectFrom('transaction_steps').select('step').where('transaction_id', '=', id).where('step', '=', 'capture').execute()).length;

let lastReader: string | null = null;
async function awaitingPayment() {
  if (lastReader) await cardA.complete(lastReader).catch(() => undefined);
  const r = await api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body: { lines: [{ item_id: m.items[0]!.id, qty: 1 }] } });
  expect(r.body.data).toMatchObject({ payment_provider: 'card-a', status: 'Awaiting Payment' });
  lastReader = r.body.data.payment_snapshot.reader_id;
  return r.body.data as { id: string; payment_snapshot: { id: string; reader_id: string } };
}

function readerEvent(t: { payment_snapshot: { id: string; reader_id: string } }, type = 'terminal.reader.action_succeeded', readerId = t.payment_snapshot.reader_id) {
  const failed = type === 'terminal.reader.action_failed';
  return JSON.stringify({
    id: `evt_${crypto.randomUUID().replaceAll('-', '')}`,
    object: 'event',
    created: now(),
    type,
    data: {
      object: {
        id: readerId,
        object: 'terminal.reader',
        action: { type: 'process_payment_intent', status: failed ? 'failed' : 'succeeded', failure_code: failed ? 'card_declined' : null, failure_message: null, process_payment_intent: { payment_intent: t.payment_snapshot.id } },
        device_type: 'simulated_wisepos_e',
        metadata: {},
        status: 'online',
      },
    },
    livemode: false,
  });
}

/** The customer pays on the reader: card-a's intent succeeds (this simulator sends no webhook itself). */
async function paidAtProvider(t: { payment_snapshot: { reader_id: string } }) {
  await cardA.complete(t.payment_snapshot.reader_id);
  if (lastReader === t.payment_snapshot.reader_id) lastReader = null;
}

describe('POST /card-a-webhook/{countryCode}', () => {
  test('a signed action_succeeded is checked with card-a: an intent card-a does not report paid captures nothing', async () => {
    const t = await awaitingPayment();
    const early = readerEvent(t);
    expect(await post(early, sign(early))).toMatchObject({ status: 200, text: '{"received":true}' });
    expect((await txn(t.id)).status).toBe('Awaiting Payment');
    expect(await captures(t.id)).toBe(0);
    // Once card-a reports the intent paid, the reader's event captures it, once.
    await paidAtProvider(t);
    const paid = readerEvent(t);
    expect((await post(paid, sign(paid))).status).toBe(200);
    expect((await txn(t.id)).status).toBe('Complete');
    expect(await captures(t.id)).toBe(1);
    // The trace says the webhook captured it (having asked card-a), not the kiosk's poll.
    expect((await tdb().selectFrom('transaction_steps').select('outcome').where('transaction_id', '=', t.id).where('step', '=', 'capture').executeTakeFirstOrThrow()).outcome).toBe('webhook');
  });

  test('a valid signature: the reader resolves the tenant and the payment is captured', async () => {
    const t = await awaitingPayment();
    await paidAtProvider(t);
    const raw = readerEvent(t);
    const r = await post(raw, sign(raw));
    expect(r).toMatchObject({ status: 200, text: '{"received":true}' });
    expect((await txn(t.id)).status).toBe('Complete');
    const [log] = await logOf(JSON.parse(raw).id);
    expect(log).toMatchObject({ type: 'card_a_webhook', status: 'processed', merchant_id: m.merchant.id, event_type: 'terminal.reader.action_succeeded', raw_body: raw });
  });

  test('a forged signature, another country\'s secret, no header: 401, nothing stored, nothing changed', async () => {
    const t = await awaitingPayment();
    const raw = readerEvent(t);
    const forged = `t=${now()},v1=${'ab'.repeat(32)}`;
    for (const [sig, country] of [[forged, 'BE'], [sign(raw, 'whsec_wrong_secret'), 'BE'], [sign(raw), 'NL'], [null, 'BE']] as const) {
      const r = await post(raw, sig, country);
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ message: 'Webhook verification failed.' });
    }
    expect(await logOf(JSON.parse(raw).id)).toEqual([]);
    expect((await txn(t.id)).status).toBe('Awaiting Payment');
    // The country's own secret verifies (case of the code does not matter).
    await paidAtProvider(t);
    expect((await post(raw, sign(raw, NL_SECRET), 'nl')).status).toBe(200);
    expect((await txn(t.id)).status).toBe('Complete');
  });

  test('a signature over re-serialised JSON does not verify: the raw bytes are what is signed', async () => {
    const t = await awaitingPayment();
    const raw = readerEvent(t);
    const pretty = JSON.stringify(JSON.parse(raw), null, 2);
    expect((await post(pretty, sign(raw))).status).toBe(401);
    expect((await post(raw, sign(pretty))).status).toBe(401);
  });

  test('a stale timestamp (older than 300 s) is refused even with a valid signature', async () => {
    const t = await awaitingPayment();
    const raw = readerEvent(t);
    const r = await post(raw, sign(raw, SECRET, now() - 301));
    expect(r).toMatchObject({ status: 401, body: { message: 'Webhook verification failed.' } });
    expect((await txn(t.id)).status).toBe('Awaiting Payment');
  });

  test('a replay of the same delivery is acknowledged, stored and changes nothing (the event is claimed once)', async () => {
    const t = await awaitingPayment();
    await paidAtProvider(t);
    const raw = readerEvent(t);
    const sig = sign(raw);
    expect((await post(raw, sig)).status).toBe(200);
    const receipt = (await txn(t.id)).receipt_no;
    const again = await post(raw, sig);
    expect(again).toMatchObject({ status: 200, text: '{"received":true}' });
    expect((await logOf(JSON.parse(raw).id)).map((l) => l.status)).toEqual(['processed', 'duplicate']);
    expect((await txn(t.id)).receipt_no).toBe(receipt);
    expect(await captures(t.id)).toBe(1);
  });

  test('a signed body that is not JSON is stored as failed and acknowledged', async () => {
    const raw = 'this is not json';
    const r = await post(raw, sign(raw));
    expect(r).toMatchObject({ status: 200, text: '{"received":true}' });
    const row = await api.deps.db.selectFrom('webhook_logs').selectAll().where('provider', '=', 'card-a').where('raw_body', '=', raw).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'failed', error: 'not_an_event', payload: null });
  });

  test('an unknown reader resolves no tenant: stored as location_not_resolved, same answer', async () => {
    const t = await awaitingPayment();
    const raw = readerEvent(t, 'terminal.reader.action_succeeded', 'tmr_UNKNOWN');
    expect(await post(raw, sign(raw))).toMatchObject({ status: 200, text: '{"received":true}' });
    expect((await logOf(JSON.parse(raw).id))[0]).toMatchObject({ status: 'location_not_resolved', merchant_id: null });
    expect((await txn(t.id)).status).toBe('Awaiting Payment');
  });

  test('events not acted on (spec 3: the payment-method-attached event) are stored and acknowledged', async () => {
    const raw = JSON.stringify({ id: 'evt_pm_attached_1', object: 'event', created: now(), type: 'payment_method.attached', data: { object: { id: 'pm_1', object: 'payment_method', customer: 'cus_1' } }, livemode: false });
    expect(await post(raw, sign(raw))).toMatchObject({ status: 200, text: '{"received":true}' });
    expect((await logOf('evt_pm_attached_1'))[0]).toMatchObject({ status: 'ignored' });
  });

  test('terminal.reader.action_failed marks the transaction failed', async () => {
    const t = await awaitingPayment();
    const raw = readerEvent(t, 'terminal.reader.action_failed');
    expect((await post(raw, sign(raw))).status).toBe(200);
    const after = await txn(t.id);
    expect(after.status).not.toBe('Complete');
    expect(after.status).not.toBe('Awaiting Payment');
    expect(after.payment_snapshot).toMatchObject({ failure_code: 'card_declined' });
    // Paid after all (a retry on the reader): the completed payment does not keep the earlier failure.
    await paidAtProvider(t);
    const paid = readerEvent(t, 'terminal.reader.action_succeeded');
    expect((await post(paid, sign(paid))).status).toBe(200);
    const done = await txn(t.id);
    expect(done.status).toBe('Complete');
    expect(done.payment_snapshot.failure_code).toBeUndefined();
  });

  test('payment_intent.succeeded: tenant from metadata location_id, verified with the provider before capture', async () => {
    const t = await awaitingPayment();
    const intent = (piStatus: string) =>
      JSON.stringify({ id: `evt_${crypto.randomUUID().replaceAll('-', '')}`, object: 'event', created: now(), type: 'payment_intent.succeeded', data: { object: { id: t.payment_snapshot.id, object: 'payment_intent', status: piStatus, metadata: cardA.intent(t.payment_snapshot.id)!.metadata } }, livemode: false });
    // The payload claims success but the provider says the intent is still open: nothing is captured.
    const early = intent('succeeded');
    expect((await post(early, sign(early))).status).toBe(200);
    expect((await txn(t.id)).status).toBe('Awaiting Payment');
    // Once the provider reports it paid, the next event captures.
    await cardA.complete(t.payment_snapshot.reader_id);
    lastReader = null;
    const paid = intent('succeeded');
    expect((await post(paid, sign(paid))).status).toBe(200);
    expect((await txn(t.id)).status).toBe('Complete');
    expect((await logOf(JSON.parse(paid).id))[0]).toMatchObject({ status: 'processed', merchant_id: m.merchant.id });
  });

  test('APP_ENV=local skips the signature check (and only local does)', async () => {
    const local = await createTestApi({ env: { ...CREDS, APP_ENV: 'local', CARD_A_BASE_URL: cardA.url } });
    try {
      const raw = JSON.stringify({ id: `evt_local_${crypto.randomUUID()}`, object: 'event', created: now(), type: 'payment_method.attached', data: { object: {} }, livemode: false });
      expect(await local.call('POST', '/api/card-a-webhook/BE', { rawBody: raw })).toMatchObject({ status: 200, text: '{"received":true}' });
      expect((await local.deps.db.selectFrom('webhook_logs').select('status').where('event_id', '=', JSON.parse(raw).id).executeTakeFirst())?.status).toBe('ignored');
    } finally {
      await local.close();
    }
    expect((await post(JSON.stringify({ id: 'evt_x', type: 'customer.updated' }), null)).status).toBe(401);
  });

  test('the card-a simulator delivers a signed webhook to the running API and the kiosk sees Complete', async () => {
    const sim = startCardASimulator({ secretKey: CREDS.CARD_A_SECRET_KEY, webhookSecret: SECRET });
    const live = await createTestApi({ env: { ...CREDS, CARD_A_BASE_URL: sim.url, CARD_A_WEBHOOK_SECRET: SECRET } });
    // On a port the system picks (one probed and released first could be taken meanwhile); the simulator is told it after.
    const server = live.app.listen({ port: 0, hostname: '127.0.0.1' });
    sim.setWebhookUrl(`http://127.0.0.1:${live.app.server!.port}/api/card-a-webhook/BE`);
    try {
      const lm = await live.seed('calive');
      // The kiosk is on card-a through the API: a card-a account onboarded at the simulator, whose
      // account.updated reaches the API, on the merchant's first (default) payment profile.
      const owner = await live.ownerToken(lm);
      const profile = (await live.call('POST', '/api/back-office/settings/payment-profiles', { token: owner, body: { name: 'Card-a' } })).body.data.id;
      const account = (await live.call('POST', `/api/back-office/settings/payment-profiles/${profile}/card-a/url`, { token: owner, body: {} })).body.data.account_id;
      expect((await fetch(`${sim.url}/_sim/accounts/${account}/complete-onboarding`, { method: 'POST' })).status).toBe(200);
      expect(sim.webhooks.at(-1)).toMatchObject({ body: { type: 'account.updated' }, result: { status: 200 } });
      const token = await live.deviceToken(lm, 'kiosk');
      const created = (await live.call('POST', '/api/kiosk/payment/create-intent', { token, deviceKey: true, body: { lines: [{ item_id: lm.items[0]!.id, qty: 1 }] } })).body.data;
      await sim.complete(created.payment_snapshot.reader_id);
      expect(sim.webhooks.at(-1)).toMatchObject({ body: { type: 'terminal.reader.action_succeeded' }, result: { status: 200 } });
      const seen = await live.call('GET', `/api/kiosk/payment/session-status?idempotency_key=${created.idempotency_key}`, { token, deviceKey: true });
      expect(seen.body.data.status).toBe('Complete');
    } finally {
      await server.stop();
      await live.close();
      await sim.stop();
    }
  });
});
