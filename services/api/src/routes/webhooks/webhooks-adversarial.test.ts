import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import { startCardASimulator, startCardBSimulator, startPlatformASimulator, type CardASimulator, type CardBSimulator, type PlatformASimulator } from '@pos/providers/payments';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { capturePayment } from '@pos/core/payments/capture-payment';
import { contentHash } from '@pos/core/webhooks/webhook-log';
import { releaseCaptureDispatch } from '@pos/core/payments/capture-dispatch';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { reportInPersonProvider } from '../../testing/in-person-provider.ts';
import { cardBReversal, kioskCardBPayment } from '../../testing/card-b-events.ts';

// An adversarial pass over the payment webhooks (card-a, card-b, platform-a) and the kiosk payment
// routes: forged and replayed deliveries, events for another merchant's transaction, amounts and
// currencies that are not the order's, races of duplicate deliveries, oversized bodies, and kiosk
// calls about another device's or merchant's payment. Real PostgreSQL, Redis and simulators.
let cardA: CardASimulator;
let cardB: CardBSimulator;
let platformA: PlatformASimulator;
let api: TestApi;
/** b: kiosks on card-b (the default); b2: a second card-b merchant; a: card-a; p: platform-a. */
let b: DemoSeedResult;
let b2: DemoSeedResult;
let a: DemoSeedResult;
let p: DemoSeedResult;
const kioskOf = new Map<string, string>();
const PROVIDER_IP = '10.20.30.40';
const CA_SECRET = 'whsec_adversarial_0123456789';
const PA_KEY = 'pa-adversarial-key-0123456789';
const PA_URL = 'https://api.example.test/api/webhook/platform-a';
const CREDS = {
  CARD_B_CLIENT_ID: 'adv-cb',
  CARD_B_CLIENT_SECRET: 'adv-cb-secret',
  CARD_A_SECRET_KEY: 'sk_test_adversarial',
  PLATFORM_A_ACCESS_TOKEN: 'pa-adversarial-token',
};

beforeAll(async () => {
  cardB = startCardBSimulator({ clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET });
  cardA = startCardASimulator({ secretKey: CREDS.CARD_A_SECRET_KEY });
  platformA = startPlatformASimulator({ accessToken: CREDS.PLATFORM_A_ACCESS_TOKEN });
  api = await createTestApi({
    env: {
      ...CREDS,
      CARD_B_BASE_URL: cardB.url,
      CARD_A_BASE_URL: cardA.url,
      PLATFORM_A_BASE_URL: platformA.url,
      CARD_B_WEBHOOK_IPS: PROVIDER_IP,
      CARD_B_WEBHOOK_KEY: 'adv-verification-key',
      CARD_B_COMMISSION_BPS: '200',
      CARD_A_WEBHOOK_SECRET: CA_SECRET,
      PLATFORM_A_WEBHOOK_SIGNATURE_KEY: PA_KEY,
      PLATFORM_A_WEBHOOK_URL: PA_URL,
    },
  });
  [b, b2, a, p] = [await api.seed('adv-b'), await api.seed('adv-b2'), await api.seed('adv-a'), await api.seed('adv-p')];
  for (const m of [b, b2, a, p]) kioskOf.set(m.merchant.id, await api.deviceToken(m, 'kiosk'));
  await reportInPersonProvider(tdb(a), 'card-a');
  await tdb(p).updateTable('locations').set({ payment_settings: JSON.stringify({ platform_a: { active: true, location_id: `PA-${p.merchant.id}` } }) }).where('id', '=', p.locations[0]!.id).execute();
});
afterAll(async () => {
  await api.close();
  await Promise.all([cardB.stop(), cardA.stop(), platformA.stop()]);
});

const tdb = (m: DemoSeedResult) => bindTenant(api.deps.db, m.merchant.tenant_database);
const txn = (m: DemoSeedResult, id: string) => tdb(m).selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const captures = async (m: DemoSeedResult, id: string) => (await tdb(m).selectFrom('transaction_steps').select('step').where('transaction_id', '=', id).where('step', '=', 'capture').execute()).length;
const kioskCall = (m: DemoSeedResult, method: string, path: string, body?: unknown) => api.call(method, path, { token: kioskOf.get(m.merchant.id)!, deviceKey: true, ...(body === undefined ? {} : { body }) });
const captureDeps = (m: DemoSeedResult) => ({ tdb: tdb(m), tenantDatabase: m.merchant.tenant_database, redis: api.deps.redis, providers: api.deps.payments, log: api.deps.log, now: () => new Date() });

type Started = { id: string; order_no: number; total: number; idempotency_key: string; status: string; payment_snapshot: Record<string, any> };
/** The previous sale of each terminal is finished first (a simulated terminal takes one at a time). */
const finishing = new Map<string, () => Promise<unknown>>();
async function startPayment(m: DemoSeedResult, qty = 1): Promise<Started> {
  await finishing.get(m.merchant.id)?.().catch(() => undefined);
  const r = await kioskCall(m, 'POST', '/api/kiosk/payment/create-intent', { lines: [{ item_id: m.items[0]!.id, qty }] });
  expect(r.status).toBe(200);
  const t = r.body.data as Started;
  expect(t.status).toBe('Awaiting Payment');
  const s = t.payment_snapshot;
  finishing.set(m.merchant.id, () => (s.checkout_id ? platformA.complete(s.checkout_id) : s.reader_id ? cardA.complete(s.reader_id) : cardB.complete(t.idempotency_key)));
  return t;
}

// ---- card-b -------------------------------------------------------------------------------------

const cardBPost = (raw: string, event = 1796, ip = PROVIDER_IP) => api.call('POST', `/api/card-b-webhook/BE/${event}`, { rawBody: raw, ip });
const cardBLog = (raw: string) => api.deps.db.selectFrom('webhook_logs').selectAll().where('type', '=', 'card_b_webhook').where('webhook_id', '=', contentHash(raw)).executeTakeFirst();
const ledgerOf = (ref: string) => api.deps.db.selectFrom('commission_ledger').selectAll().where('source', '=', 'card_b_terminal').where((eb) => eb.or([eb('source_ref', '=', ref), eb('adjusts_id', 'in', eb.selectFrom('commission_ledger as l').select('l.id').where('l.source_ref', '=', ref))])).execute();

describe('card-b webhooks, adversarial', () => {
  test('an event resolved to another merchant (its location in Tags[0]) for the same order number captures neither order: the session terminal differs', async () => {
    const mine = await startPayment(b);
    const theirs = await startPayment(b2);
    // b's payment (its terminal, its order number) but naming b2's location: b2's order with that number is not b's money.
    const raw = kioskCardBPayment(b, { order_no: theirs.order_no, total: theirs.total }, { Tags: [b2.locations[0]!.id], MerchantTrns: `${b2.locations[0]!.id}:${theirs.order_no}` });
    expect(await cardBPost(raw)).toMatchObject({ status: 200, body: { received: true } });
    expect(await cardBLog(raw)).toMatchObject({ status: 'failed', error: 'terminal_mismatch', merchant_id: b2.merchant.id });
    expect((await txn(b2, theirs.id)).status).toBe('Awaiting Payment');
    expect((await txn(b, mine.id)).status).toBe('Awaiting Payment');
  });

  test('a payment without a terminal (another card-b account\'s e-commerce payment naming this location and order) does not complete a kiosk order: only its session\'s terminal pays it', async () => {
    const t = await startPayment(b);
    // Every field of the order but the terminal: card-b sends a terminal sale's TerminalId, so an event
    // without one is not the sale the kiosk started (and the kiosk path never asks card-b about it).
    const bodies = [
      kioskCardBPayment(b, t, { TerminalId: undefined, Tags: [b.locations[0]!.id] }),
      kioskCardBPayment(b, t, { TerminalId: null }),
      kioskCardBPayment(b, t, { TerminalId: '' }),
    ];
    for (const raw of bodies) expect(await cardBPost(raw)).toMatchObject({ status: 200, body: { received: true } });
    expect((await Promise.all(bodies.map(cardBLog))).map((l) => [l?.status, l?.error])).toEqual(Array(3).fill(['failed', 'terminal_mismatch']));
    expect(await txn(b, t.id)).toMatchObject({ status: 'Awaiting Payment', receipt_no: null });
    expect(await ledgerOf(JSON.parse(bodies[0]!).EventData.TransactionId)).toEqual([]);
    // The terminal's own event completes it.
    const own = kioskCardBPayment(b, t);
    expect((await cardBPost(own)).status).toBe(200);
    expect((await txn(b, t.id)).status).toBe('Complete');
  });

  test('a signed-looking body from an address outside the allow-list, and X-Forwarded-For naming the provider, are 401 with nothing stored', async () => {
    const t = await startPayment(b);
    const raw = kioskCardBPayment(b, t);
    for (const r of [await cardBPost(raw, 1796, '198.51.100.7'), await api.call('POST', '/api/card-b-webhook/BE/1796', { rawBody: raw, ip: '198.51.100.7', headers: { 'x-forwarded-for': PROVIDER_IP, 'x-real-ip': PROVIDER_IP } })]) {
      expect(r).toMatchObject({ status: 401, body: { message: 'Webhook verification failed.' } });
    }
    expect(await cardBLog(raw)).toBeUndefined();
    expect((await txn(b, t.id)).status).toBe('Awaiting Payment');
  });

  test('an amount in cents sent as major units of the wrong currency, a negative tip making up a short amount, and a non-numeric amount are not captured', async () => {
    const t = await startPayment(b);
    const bodies = [
      kioskCardBPayment(b, t, { CurrencyCode: '840' }),
      kioskCardBPayment(b, t, { Amount: t.total / 100 - 0.01, TipAmount: -1 }),
      kioskCardBPayment(b, t, { Amount: 'NaN' }),
      kioskCardBPayment(b, t, { Amount: '1e3' }),
    ];
    for (const raw of bodies) expect((await cardBPost(raw)).status).toBe(200);
    expect((await Promise.all(bodies.map(cardBLog))).map((l) => [l?.status, l?.error])).toEqual([
      ['failed', 'currency_mismatch'],
      ['failed', 'amount_mismatch'],
      ['failed', 'amount_mismatch'],
      ['failed', 'amount_mismatch'],
    ]);
    expect((await txn(b, t.id)).status).toBe('Awaiting Payment');
  });

  test('a reversal delivered before its payment (the payment event failed first, or came late): stored failed (ledger_row_missing), then applied when the payment\'s ledger row is written', async () => {
    const t = await startPayment(b);
    const pay = kioskCardBPayment(b, t);
    const parentId = JSON.parse(pay).EventData.TransactionId as string;
    const reversal = cardBReversal(b, parentId, t.total / 100);
    expect(await cardBPost(reversal, 1797)).toMatchObject({ status: 200, body: { received: true } });
    expect(await cardBLog(reversal)).toMatchObject({ status: 'failed', error: 'ledger_row_missing', merchant_id: b.merchant.id });
    expect(await ledgerOf(parentId)).toEqual([]);
    expect((await cardBPost(pay)).status).toBe(200);
    expect((await txn(b, t.id)).status).toBe('Complete');
    const rows = await ledgerOf(parentId);
    const entry = rows.find((r) => !r.is_adjustment)!;
    expect(entry.commission_amount).toBe(Math.round((t.total * 200) / 10_000));
    expect(rows.filter((r) => r.is_adjustment).map((r) => [r.adjusts_id, r.commission_amount, r.reason, r.source_ref])).toEqual([[entry.id, -entry.commission_amount, 'card_b_reversal', JSON.parse(reversal).EventData.TransactionId]]);
    expect(await cardBLog(reversal)).toMatchObject({ status: 'processed', error: null });
    // The same reversal again (a provider retry) is a duplicate: nothing more is clawed back.
    expect((await cardBPost(cardBReversal(b, parentId, t.total / 100 + 0.01, JSON.parse(reversal).EventData.TransactionId), 1797)).status).toBe(200);
    expect((await ledgerOf(parentId)).length).toBe(2);
  });

  test('a payment and its reversal delivered at the same moment: the commission ends clawed back, once', async () => {
    const left: string[] = [];
    for (let i = 0; i < 6; i++) {
      const t = await startPayment(b);
      const pay = kioskCardBPayment(b, t);
      const parentId = JSON.parse(pay).EventData.TransactionId as string;
      const reversal = cardBReversal(b, parentId, t.total / 100);
      const answers = await Promise.all([cardBPost(pay), cardBPost(reversal, 1797)]);
      expect(answers.map((r) => r.status)).toEqual([200, 200]);
      const rows = await ledgerOf(parentId);
      if (rows.reduce((sum, r) => sum + r.commission_amount, 0) !== 0 || rows.length !== 2) left.push(`${(await cardBLog(reversal))?.status}:${rows.length}`);
    }
    expect(left).toEqual([]);
  });

  test('a reversal resolved to another merchant does not claw back this merchant\'s commission', async () => {
    const t = await startPayment(b);
    const pay = kioskCardBPayment(b, t);
    expect((await cardBPost(pay)).status).toBe(200);
    const parentId = JSON.parse(pay).EventData.TransactionId as string;
    const reversal = cardBReversal(b2, parentId, t.total / 100);
    expect((await cardBPost(reversal, 1797)).status).toBe(200);
    const rows = await ledgerOf(parentId);
    expect(rows.map((r) => r.is_adjustment)).toEqual([false]);
    expect(rows[0]!.commission_amount).toBe(Math.round((t.total * 200) / 10_000));
    // b2 has no such payment: the reversal waits (failed), it never reaches b's ledger.
    expect(await cardBLog(reversal)).toMatchObject({ status: 'failed', error: 'ledger_row_missing', merchant_id: b2.merchant.id });
  });
});

// ---- card-a -------------------------------------------------------------------------------------

const now = () => Math.floor(Date.now() / 1000);
const signA = (raw: string, t = now(), secret = CA_SECRET) => `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${raw}`).digest('hex')}`;
const cardAPost = (raw: string, signature: string | null) => api.call('POST', '/api/card-a-webhook/BE', { rawBody: raw, headers: signature ? { 'card-a-signature': signature } : {} });
const cardALogs = (eventId: string) => api.deps.db.selectFrom('webhook_logs').selectAll().where('provider', '=', 'card-a').where('event_id', '=', eventId).execute();
function readerEvent(readerId: string, intent: string, type = 'terminal.reader.action_succeeded') {
  return JSON.stringify({
    id: `evt_${crypto.randomUUID().replaceAll('-', '')}`,
    object: 'event',
    created: now(),
    type,
    data: { object: { id: readerId, object: 'terminal.reader', action: { type: 'process_payment_intent', status: 'succeeded', process_payment_intent: { payment_intent: intent } }, status: 'online' } },
    livemode: false,
  });
}
function intentEvent(intent: string, locationId: string, type = 'payment_intent.succeeded') {
  return JSON.stringify({ id: `evt_${crypto.randomUUID().replaceAll('-', '')}`, object: 'event', created: now(), type, data: { object: { id: intent, object: 'payment_intent', status: 'succeeded', metadata: { location_id: locationId } } }, livemode: false });
}

describe('card-a webhooks, adversarial', () => {
  test('a future timestamp past the tolerance, a signature with the secret but over another timestamp, and an empty v1 are 401 with nothing stored', async () => {
    const t = await startPayment(a);
    const raw = readerEvent(t.payment_snapshot.reader_id, t.payment_snapshot.id);
    const future = now() + 3600;
    const good = signA(raw);
    const v1 = good.split('v1=')[1]!;
    // The last hex digit changed (never to itself).
    const altered = v1.slice(0, -1) + (v1.endsWith('0') ? '1' : '0');
    const headers = [signA(raw, future), `t=${now()},v1=${altered}`, `t=${now()},v1=`, `t=${Number(good.split(',')[0]!.slice(2)) - 1},${good.split(',')[1]}`];
    for (const h of headers) expect(await cardAPost(raw, h)).toMatchObject({ status: 401, body: { message: 'Webhook verification failed.' } });
    expect(await cardALogs(JSON.parse(raw).id)).toEqual([]);
  });

  test('a reader event of one merchant naming another merchant\'s payment intent captures nothing (failed, transaction_not_found)', async () => {
    const theirs = await startPayment(a);
    await cardA.complete(theirs.payment_snapshot.reader_id);
    // A reader no merchant has (unresolved) and one that resolves to b (which runs card-b): neither reaches a's order.
    await tdb(b).updateTable('devices').set({ card_a_reader_id: 'tmr_adversarial_b' }).where('id', '=', b.kiosk.device_id).execute();
    const raw = readerEvent('tmr_adversarial_b', theirs.payment_snapshot.id);
    expect((await cardAPost(raw, signA(raw))).status).toBe(200);
    expect((await cardALogs(JSON.parse(raw).id)).map((l) => [l.status, l.error, l.merchant_id])).toEqual([['failed', 'transaction_not_found', b.merchant.id]]);
    const intent = intentEvent(theirs.payment_snapshot.id, b.locations[0]!.id);
    expect((await cardAPost(intent, signA(intent))).status).toBe(200);
    expect((await cardALogs(JSON.parse(intent).id)).map((l) => [l.status, l.error])).toEqual([['failed', 'transaction_not_found']]);
    expect((await txn(a, theirs.id)).status).toBe('Awaiting Payment');
    finishing.delete(a.merchant.id);
  });

  test('the same signed delivery 15 times at once: captured once, one processed, the others duplicates, every delivery answered 200', async () => {
    const t = await startPayment(a);
    await cardA.complete(t.payment_snapshot.reader_id);
    finishing.delete(a.merchant.id);
    const raw = readerEvent(t.payment_snapshot.reader_id, t.payment_snapshot.id);
    const sig = signA(raw);
    const answers = await Promise.all(Array.from({ length: 15 }, () => cardAPost(raw, sig)));
    expect(answers.map((r) => r.status)).toEqual(Array(15).fill(200));
    expect((await txn(a, t.id)).status).toBe('Complete');
    expect(await captures(a, t.id)).toBe(1);
    const statuses = (await cardALogs(JSON.parse(raw).id)).map((l) => l.status).sort();
    expect(statuses).toEqual(['processed', ...Array(14).fill('duplicate')].sort());
  });

  test('a failure event arriving after the payment was captured (reordered) leaves it Complete', async () => {
    const t = await startPayment(a);
    await cardA.complete(t.payment_snapshot.reader_id);
    finishing.delete(a.merchant.id);
    const ok = readerEvent(t.payment_snapshot.reader_id, t.payment_snapshot.id);
    expect((await cardAPost(ok, signA(ok))).status).toBe(200);
    for (const type of ['terminal.reader.action_failed', 'payment_intent.canceled', 'payment_intent.payment_failed']) {
      const late = type.startsWith('terminal') ? readerEvent(t.payment_snapshot.reader_id, t.payment_snapshot.id, type) : intentEvent(t.payment_snapshot.id, a.locations[0]!.id, type);
      expect((await cardAPost(late, signA(late))).status).toBe(200);
    }
    expect(await txn(a, t.id)).toMatchObject({ status: 'Complete', receipt_no: expect.any(Number) });
  });

  test('dispute and refund events of a captured kiosk payment are acknowledged and leave the order Complete (spec 3: a refund adjusts commission only)', async () => {
    const t = await startPayment(a);
    await cardA.complete(t.payment_snapshot.reader_id);
    finishing.delete(a.merchant.id);
    const ok = readerEvent(t.payment_snapshot.reader_id, t.payment_snapshot.id);
    expect((await cardAPost(ok, signA(ok))).status).toBe(200);
    const before = await txn(a, t.id);
    const events = ['charge.dispute.created', 'charge.dispute.closed', 'payment_intent.requires_action', 'charge.refund.updated'].map((type) =>
      JSON.stringify({ id: `evt_${crypto.randomUUID().replaceAll('-', '')}`, object: 'event', created: now(), type, data: { object: { id: `dp_${type}`, payment_intent: t.payment_snapshot.id, metadata: { location_id: a.locations[0]!.id } } }, livemode: false }),
    );
    for (const raw of events) expect(await cardAPost(raw, signA(raw))).toMatchObject({ status: 200, body: { received: true } });
    for (const raw of events) expect((await cardALogs(JSON.parse(raw).id)).map((l) => l.status)).toEqual(['ignored']);
    const after = await txn(a, t.id);
    expect({ status: after.status, receipt_no: after.receipt_no, updated_at: after.updated_at }).toEqual({ status: 'Complete', receipt_no: before.receipt_no, updated_at: before.updated_at });
  });

  test('a body over the webhook limit is 413 before anything is stored; malformed JSON that verifies is stored failed and acknowledged', async () => {
    const big = JSON.stringify({ id: 'evt_big', type: 'x', pad: 'a'.repeat(300 * 1024) });
    const r = await cardAPost(big, signA(big));
    expect(r.status).toBe(413);
    expect(await cardALogs('evt_big')).toEqual([]);
    const broken = '{"id":"evt_broken","type":';
    expect(await cardAPost(broken, signA(broken))).toMatchObject({ status: 200, body: { received: true } });
    const row = await api.deps.db.selectFrom('webhook_logs').selectAll().where('provider', '=', 'card-a').where('raw_body', '=', broken).executeTakeFirst();
    expect(row).toMatchObject({ status: 'failed', error: 'not_an_event' });
  });
});

// ---- platform-a ---------------------------------------------------------------------------------

const signP = (raw: string) => createHmac('sha256', PA_KEY).update(PA_URL + raw).digest('base64');
const platformPost = (raw: string, signature = signP(raw)) => api.call('POST', '/api/webhook/platform-a', { rawBody: raw, headers: { 'x-platform-a-hmacsha256-signature': signature } });
const platformLogs = (eventId: string) => api.deps.db.selectFrom('webhook_logs').selectAll().where('provider', '=', 'platform-a').where('event_id', '=', eventId).execute();
function checkoutEvent(t: Started, status = 'COMPLETED', over: Record<string, unknown> = {}, eventId = crypto.randomUUID()) {
  return JSON.stringify({
    merchant_id: 'SIM',
    type: 'terminal.checkout.updated',
    event_id: eventId,
    data: {
      type: 'checkout.event',
      id: t.payment_snapshot.checkout_id,
      object: {
        checkout: {
          id: t.payment_snapshot.checkout_id,
          amount_money: { amount: t.total, currency: 'EUR' },
          device_options: { device_id: t.payment_snapshot.device_id },
          reference_id: t.id,
          status,
          payment_ids: status === 'COMPLETED' ? ['pay_1'] : [],
          ...over,
        },
      },
    },
  });
}

describe('platform-a webhooks, adversarial', () => {
  test('a completed checkout in another currency, or with the amount as a string, is not captured', async () => {
    const t = await startPayment(p);
    const usd = checkoutEvent(t, 'COMPLETED', { amount_money: { amount: t.total, currency: 'USD' } });
    const str = checkoutEvent(t, 'COMPLETED', { amount_money: { amount: String(t.total), currency: 'EUR' } });
    for (const raw of [usd, str]) expect((await platformPost(raw)).status).toBe(200);
    expect((await platformLogs(JSON.parse(usd).event_id))[0]).toMatchObject({ status: 'failed', error: 'currency_mismatch' });
    expect((await platformLogs(JSON.parse(str).event_id))[0]).toMatchObject({ status: 'failed', error: 'amount_mismatch' });
    expect((await txn(p, t.id)).status).toBe('Awaiting Payment');
  });

  test('an event resolved to one merchant naming another merchant\'s transaction and checkout captures nothing', async () => {
    const theirs = await startPayment(p);
    await tdb(b).updateTable('locations').set({ payment_settings: JSON.stringify({ platform_a: { active: false, location_id: 'PA-ADVERSARIAL-B' } }) }).where('id', '=', b.locations[0]!.id).execute();
    const raw = checkoutEvent(theirs, 'COMPLETED', { location_id: 'PA-ADVERSARIAL-B' });
    expect((await platformPost(raw)).status).toBe(200);
    expect((await platformLogs(JSON.parse(raw).event_id)).map((l) => [l.status, l.error, l.merchant_id])).toEqual([['failed', 'transaction_not_found', b.merchant.id]]);
    expect((await txn(p, theirs.id)).status).toBe('Awaiting Payment');
    await tdb(b).updateTable('locations').set({ payment_settings: JSON.stringify({}) }).where('id', '=', b.locations[0]!.id).execute();
  });

  test('the same event 12 times at once, then a late CANCELED: captured once, stays Complete', async () => {
    const t = await startPayment(p);
    finishing.delete(p.merchant.id);
    const raw = checkoutEvent(t);
    const answers = await Promise.all(Array.from({ length: 12 }, () => platformPost(raw)));
    expect(answers.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(await captures(p, t.id)).toBe(1);
    expect((await platformLogs(JSON.parse(raw).event_id)).map((l) => l.status).sort()).toEqual(['processed', ...Array(11).fill('duplicate')].sort());
    const late = checkoutEvent(t, 'CANCELED', { cancel_reason: 'TIMED_OUT' });
    expect((await platformPost(late)).status).toBe(200);
    expect((await txn(p, t.id)).status).toBe('Complete');
  });

  test('a signature over the body without the notification URL, or base64 of another body, is 401', async () => {
    const t = await startPayment(p);
    const raw = checkoutEvent(t);
    const noUrl = createHmac('sha256', PA_KEY).update(raw).digest('base64');
    const other = signP(raw.replace('COMPLETED', 'CANCELED'));
    for (const sig of [noUrl, other, '']) expect(await platformPost(raw, sig)).toMatchObject({ status: 401, body: { message: 'Webhook verification failed.' } });
    expect(await platformLogs(JSON.parse(raw).event_id)).toEqual([]);
  });
});

// ---- kiosk payment routes -----------------------------------------------------------------------

/** A card-b kiosk order of `m`, paid and captured. */
async function completed(m: DemoSeedResult): Promise<Started> {
  const t = await startPayment(m);
  await cardB.complete(t.idempotency_key);
  finishing.delete(m.merchant.id);
  expect((await capturePayment(captureDeps(m), t.id, { kind: 'poll' })).status).toBe('Complete');
  return t;
}
const receiptMails = async (to: string) =>
  (await api.deps.db.selectFrom('outbox').select('payload').where('job', '=', 'notification.send').execute()).filter((o) => (o.payload as { to?: string }).to === to).length;

describe('kiosk payment routes, adversarial', () => {
  test('send-receipt: another merchant\'s kiosk naming this key is 404, a header-injection or bare address is 422, an open order is 409; nothing is mailed', async () => {
    const t = await completed(b);
    const to = `victim-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const other = await kioskCall(b2, 'POST', '/api/kiosk/payment/send-receipt', { idempotency_key: t.idempotency_key, email: to });
    expect(other).toMatchObject({ status: 404, body: { message: 'Unable to locate the transaction you requested.' } });
    for (const email of [`${to}\r\nBcc: all@example.com`, 'nobody', `a@b`, `${'x'.repeat(250)}@example.com`]) {
      const r = await kioskCall(b, 'POST', '/api/kiosk/payment/send-receipt', { idempotency_key: t.idempotency_key, email });
      expect(r.status).toBe(422);
      expect(r.body.errors.email).toEqual(['The email field must be a valid email address.']);
    }
    const open = await startPayment(b);
    const r = await kioskCall(b, 'POST', '/api/kiosk/payment/send-receipt', { idempotency_key: open.idempotency_key, email: to });
    expect(r).toMatchObject({ status: 409, body: { reason: 'no_receipt' } });
    expect(await receiptMails(to)).toBe(0);
  });

  test('send-receipt is throttled: 5 mails per transaction an hour and 10 per kiosk a minute, then 429 and nothing more mailed', async () => {
    // A merchant of its own: no other test's requests count against its kiosk.
    const r = await api.seed('adv-r');
    kioskOf.set(r.merchant.id, await api.deviceToken(r, 'kiosk'));
    const [t1, t2, t3] = [await completed(r), await completed(r), await completed(r)];
    const tag = crypto.randomUUID().slice(0, 8);
    const send = (t: Started, i: number) => kioskCall(r, 'POST', '/api/kiosk/payment/send-receipt', { idempotency_key: t.idempotency_key, email: `spam-${tag}-${i}@example.com` });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await send(t1, i)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const refused = await send(t1, 99);
    expect(refused).toMatchObject({ status: 429, body: { message: 'Too Many Attempts.' } });
    // The device counted 7 so far: three more pass (another transaction), then the device limit holds.
    const more: number[] = [];
    for (let i = 10; i < 14; i++) more.push((await send(t2, i)).status);
    expect(more).toEqual([200, 200, 200, 429]);
    expect((await send(t3, 20)).status).toBe(429);
    let mailed = 0;
    for (const i of [0, 1, 2, 3, 4, 5, 99, 10, 11, 12, 13, 20]) mailed += await receiptMails(`spam-${tag}-${i}@example.com`);
    expect(mailed).toBe(8);
  });

  test('details polled many times while the payment is open dispatches one capture job at a time, not one per poll', async () => {
    const t = await startPayment(b2);
    const jobs = async () => (await api.deps.db.selectFrom('outbox').select('payload').where('job', '=', 'payment.capture').execute()).filter((o) => (o.payload as { transaction_id: string }).transaction_id === t.id).length;
    const details = () => kioskCall(b2, 'GET', `/api/kiosk/payment/details/${t.idempotency_key}`);
    const polls = await Promise.all(Array.from({ length: 10 }, details));
    expect(polls.map((r) => [r.status, r.body.capture])).toEqual(Array(10).fill([200, 'dispatched']));
    expect(await jobs()).toBe(1);
    // The job ran (the worker releases the dispatch when it ends): the next poll dispatches again.
    await releaseCaptureDispatch(api.deps.redis, api.deps.log, b2.merchant.tenant_database, t.id);
    expect((await details()).body.capture).toBe('dispatched');
    expect(await jobs()).toBe(2);
  });

  test('session-status, details and cancel-action of another merchant\'s key are 404 and change nothing; cancel after capture is 409 payment_complete', async () => {
    const theirs = await startPayment(b);
    for (const [method, path, body] of [
      ['GET', `/api/kiosk/payment/session-status?idempotency_key=${theirs.idempotency_key}`, undefined],
      ['GET', `/api/kiosk/payment/details/${theirs.idempotency_key}`, undefined],
      ['POST', '/api/kiosk/payment/cancel-action', { idempotency_key: theirs.idempotency_key }],
    ] as const) {
      expect(await kioskCall(b2, method, path, body)).toMatchObject({ status: 404, body: { message: 'Unable to locate the transaction you requested.' } });
    }
    expect((await txn(b, theirs.id)).status).toBe('Awaiting Payment');
    expect(cardB.session(theirs.idempotency_key)!.state).toBe('processing');
    await cardB.complete(theirs.idempotency_key);
    finishing.delete(b.merchant.id);
    const r = await kioskCall(b, 'POST', '/api/kiosk/payment/cancel-action', { idempotency_key: theirs.idempotency_key });
    expect(r).toMatchObject({ status: 409, body: { reason: 'payment_complete' } });
    expect((await txn(b, theirs.id)).status).toBe('Complete');
    // Details for a key of no transaction, for a key-like value of another device's shape, and for junk.
    expect((await kioskCall(b, 'GET', `/api/kiosk/payment/details/idemp_${b2.kiosk.device_id}_1700000000000`)).status).toBe(404);
    expect((await kioskCall(b, 'GET', '/api/kiosk/payment/details/..%2F..%2Fetc')).status).toBe(422);
  });
});
