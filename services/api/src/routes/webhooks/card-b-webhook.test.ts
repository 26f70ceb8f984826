import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import { startCardBSimulator, type CardBSimulator } from '@pos/providers/payments';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { contentHash } from '@pos/core/webhooks/webhook-log';
import { capturePayment } from '@pos/core/payments/capture-payment';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { gate, providerHop } from '../../testing/provider-hop.ts';
import { cardBReversal, kioskCardBPayment } from '../../testing/card-b-events.ts';
import { handleCardBWebhook } from '@pos/core/webhooks/card-b-webhook';
import { webhookHandlerDeps } from './index.ts';

// card-b webhooks against real PostgreSQL, Redis and the card-b simulator over HTTP (rules 1-6).
let cardB: CardBSimulator;
let api: TestApi;
let m: DemoSeedResult;
let kiosk: string;
const PROVIDER_IP = '10.9.8.7';
const CREDS = { CARD_B_CLIENT_ID: 'cbw-test', CARD_B_CLIENT_SECRET: 'cbw-test-secret' };

beforeAll(async () => {
  cardB = startCardBSimulator({ clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET });
  api = await createTestApi({
    env: { ...CREDS, CARD_B_BASE_URL: cardB.url, CARD_B_WEBHOOK_IPS: `${PROVIDER_IP},192.0.2.0/24`, CARD_B_WEBHOOK_KEY: 'cb-verification-key-123', CARD_B_COMMISSION_BPS: '150' },
  });
  m = await api.seed('cbhook');
  kiosk = await api.deviceToken(m, 'kiosk');
});
afterAll(async () => {
  await api.close();
  await cardB.stop();
});

const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);
const item = (name: string) => m.items.find((i) => i.name === name)!;
const URL_ = (event = 1796) => `/api/card-b-webhook/BE/${event}`;
const post = (raw: string, ip = PROVIDER_IP, headers: Record<string, string> = {}, event = 1796) => api.call('POST', URL_(event), { rawBody: raw, ip, headers });
const logOf = (raw: string) => api.deps.db.selectFrom('webhook_logs').selectAll().where('type', '=', 'card_b_webhook').where('webhook_id', '=', contentHash(raw)).executeTakeFirst();
const logCount = async () => Number((await api.deps.db.selectFrom('webhook_logs').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);

/** A kiosk transaction on card-b, awaiting payment at the terminal. */
let lastKey: string | null = null;
async function awaitingPayment() {
  // The simulated terminal takes one sale at a time: the previous one is finished there first.
  if (lastKey) await cardB.complete(lastKey).catch(() => undefined);
  const r = await api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body: { lines: [{ item_id: item('Espresso').id, qty: 1 }] } });
  expect(r.status).toBe(200);
  lastKey = r.body.data.idempotency_key;
  return r.body.data as { id: string; order_no: number; total: number; idempotency_key: string; status: string };
}


const captures = async (id: string) => (await tdb().selectFrom('transaction_steps').select('step').where('transaction_id', '=', id).where('step', '=', 'capture').execute()).length;
const txn = (id: string) => tdb().selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('GET /card-b-webhook/{countryCode}/{eventTypeId}: the verification key handshake', () => {
  test('answers the configured key', async () => {
    const r = await api.call('GET', URL_());
    expect(r).toMatchObject({ status: 200, body: { Key: 'cb-verification-key-123' } });
  });
});

describe('POST /card-b-webhook/{countryCode}/{eventTypeId}', () => {
  test('an address outside the allow-list is refused (401) and nothing is stored; X-Forwarded-For is not believed without a trusted proxy', async () => {
    const t = await awaitingPayment();
    const raw = kioskCardBPayment(m, t);
    const before = await logCount();
    for (const r of [await post(raw, '203.0.113.9'), await post(raw, '203.0.113.9', { 'x-forwarded-for': PROVIDER_IP })]) {
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ message: 'Webhook verification failed.' });
    }
    expect(await logCount()).toBe(before);
    expect((await txn(t.id)).status).toBe('Awaiting Payment');
  });

  test('a payment from an allowed address is stored (rule 1), captured (rule 5) and its commission recorded', async () => {
    const t = await awaitingPayment();
    const raw = kioskCardBPayment(m, t);
    const r = await post(raw, '192.0.2.44');
    expect(r).toMatchObject({ status: 200, body: { received: true } });
    const after = await txn(t.id);
    expect(after.status).toBe('Complete');
    expect(after.receipt_no).not.toBeNull();
    expect(after.payment_snapshot).toMatchObject({ transactionId: JSON.parse(raw).EventData.TransactionId, webhook: true });
    const log = (await logOf(raw))!;
    expect(log).toMatchObject({ type: 'card_b_webhook', provider: 'card-b', status: 'processed', occurrences: 1, merchant_id: m.merchant.id, event_type: 'TRANSACTION_PAYMENT_CREATED', raw_body: raw });
    expect(log.fields).toEqual({
      event_type_id: 1796,
      event_type: 'TRANSACTION_PAYMENT_CREATED',
      order_code: JSON.parse(raw).EventData.OrderCode,
      transaction_id: JSON.parse(raw).EventData.TransactionId,
      merchant_trns: `${m.locations[0]!.id}:${t.order_no}`,
      tags: [],
    });
    expect(log.payload).toEqual(JSON.parse(raw));
    // 90-day retention for this type.
    expect(Math.round((log.expires_at!.getTime() - log.created_at.getTime()) / 1000)).toBe(7_776_000);
    const ledger = await api.deps.db.selectFrom('commission_ledger').selectAll().where('source_ref', '=', JSON.parse(raw).EventData.TransactionId).execute();
    expect(ledger.map((l) => [l.source, l.is_adjustment, l.commission_amount, l.merchant_id])).toEqual([['card_b_terminal', false, Math.round((t.total * 150) / 10_000), m.merchant.id]]);
  });

  test('the same payment webhook 20 times concurrently: captured once, occurrences 20', async () => {
    const t = await awaitingPayment();
    const raw = kioskCardBPayment(m, t);
    const results = await Promise.all(Array.from({ length: 20 }, () => post(raw)));
    expect(results.map((r) => [r.status, r.text])).toEqual(Array.from({ length: 20 }, () => [200, '{"received":true}']));
    expect(await captures(t.id)).toBe(1);
    expect((await txn(t.id)).status).toBe('Complete');
    const log = (await logOf(raw))!;
    expect(log.occurrences).toBe(20);
    const outbox = await api.deps.db.selectFrom('outbox').select('payload').where('job', '=', 'payment.post_capture').execute();
    expect(outbox.filter((o) => (o.payload as { transaction_id?: string }).transaction_id === t.id).length).toBeLessThanOrEqual(1);
    const ledger = await api.deps.db.selectFrom('commission_ledger').selectAll().where('source_ref', '=', JSON.parse(raw).EventData.TransactionId).execute();
    expect(ledger.length).toBe(1);
  });

  test('metrics count webhooks per provider and outcome', async () => {
    const metric = async (outcome: string) => {
      const text = (await api.call('GET', '/metrics')).text;
      const line = text.split('\n').find((l) => l.startsWith('webhooks_total{') && l.includes('provider="card-b"') && l.includes(`outcome="${outcome}"`));
      return line ? Number(line.split(' ').at(-1)) : 0;
    };
    const before = { received: await metric('received'), rejected: await metric('rejected'), verified: await metric('verified'), unresolved: await metric('unresolved') };
    expect((await post('{}', '203.0.113.1')).status).toBe(401);
    const raw = kioskCardBPayment(m, { order_no: 1, total: 100 }, { MerchantTrns: 'nowhere:1' });
    expect((await post(raw)).status).toBe(200);
    expect(await metric('received')).toBe(before.received + 2);
    expect(await metric('rejected')).toBe(before.rejected + 1);
    expect(await metric('verified')).toBe(before.verified + 1);
    expect(await metric('unresolved')).toBe(before.unresolved + 1);
  });

  test('a replay later is counted, answered 2xx, detected as a duplicate (rule 3) and changes nothing; its stored row keeps the outcome', async () => {
    const t = await awaitingPayment();
    const raw = kioskCardBPayment(m, t);
    expect((await post(raw)).status).toBe(200);
    const receipt = (await txn(t.id)).receipt_no;
    const again = await post(raw);
    expect(again).toMatchObject({ status: 200, body: { received: true } });
    expect(await logOf(raw)).toMatchObject({ occurrences: 2, status: 'processed' });
    expect((await txn(t.id)).receipt_no).toBe(receipt);
    expect(await captures(t.id)).toBe(1);
    // Different bytes, same seven fields (a new MessageId): stored apart, still a duplicate.
    const resent = JSON.stringify({ ...JSON.parse(raw), MessageId: crypto.randomUUID() });
    expect((await post(resent)).status).toBe(200);
    expect(await logOf(resent)).toMatchObject({ occurrences: 1, status: 'duplicate' });
  });

  test('a failed event sent again stays failed (replayable), with its error and both occurrences', async () => {
    const raw = kioskCardBPayment(m, { order_no: 999_998, total: 100 });
    expect((await post(raw)).status).toBe(200);
    expect(await logOf(raw)).toMatchObject({ occurrences: 1, status: 'failed', error: 'transaction_not_found' });
    expect((await post(raw)).status).toBe(200);
    expect(await logOf(raw)).toMatchObject({ occurrences: 2, status: 'failed', error: 'transaction_not_found' });
  });

  test('the kiosk\'s poll captured first: the webhook that follows is processed and still records the commission', async () => {
    const t = await awaitingPayment();
    await cardB.complete(t.idempotency_key);
    const deps = { tdb: tdb(), tenantDatabase: m.merchant.tenant_database, redis: api.deps.redis, providers: api.deps.payments, log: api.deps.log, now: () => new Date() };
    expect((await capturePayment(deps, t.id, { kind: 'poll' })).status).toBe('Complete');
    const paidWith = cardB.session(t.idempotency_key)!.transactionId!;
    const raw = kioskCardBPayment(m, t, { TransactionId: paidWith });
    expect((await post(raw)).status).toBe(200);
    expect(await logOf(raw)).toMatchObject({ status: 'processed' });
    const ledgerOf = (ref: string) => api.deps.db.selectFrom('commission_ledger').selectAll().where('source_ref', '=', ref).execute();
    expect((await ledgerOf(paidWith)).map((l) => [l.source, l.is_adjustment, l.commission_amount])).toEqual([['card_b_terminal', false, Math.round((t.total * 150) / 10_000)]]);
    expect(await captures(t.id)).toBe(1);
    // Another provider transaction for the order already Complete is not the payment it was captured
    // with (a second charge): no commission for it.
    const second = kioskCardBPayment(m, t, { OrderCode: '7799', TransactionId: crypto.randomUUID() });
    expect((await post(second)).status).toBe(200);
    expect(await ledgerOf(JSON.parse(second).EventData.TransactionId)).toEqual([]);
  });

  test('a delivery whose processing failed is not a duplicate (rule 3 counts processed events): the same event again within 30 s is processed', async () => {
    const prev = await awaitingPayment();
    // The event of the next order arrives before that order exists: it fails (not found), and is sent again.
    const next = { order_no: prev.order_no + 1, total: prev.total };
    const raw = kioskCardBPayment(m, next);
    expect((await post(raw)).status).toBe(200);
    expect(await logOf(raw)).toMatchObject({ status: 'failed', error: 'transaction_not_found' });
    const t = await awaitingPayment();
    expect(t.order_no).toBe(next.order_no);
    expect((await post(raw)).status).toBe(200);
    expect(await logOf(raw)).toMatchObject({ occurrences: 2, status: 'processed', error: null });
    expect((await txn(t.id)).status).toBe('Complete');
    // Processed now: a third delivery inside the window is the duplicate.
    const resent = JSON.stringify({ ...JSON.parse(raw), MessageId: crypto.randomUUID() });
    expect((await post(resent)).status).toBe(200);
    expect(await logOf(resent)).toMatchObject({ status: 'duplicate' });
  });

  test('a payment in another currency, or from another terminal than the order\'s session, is not captured (stored as failed)', async () => {
    const t = await awaitingPayment();
    const usd = kioskCardBPayment(m, t, { CurrencyCode: '840' });
    expect((await post(usd)).status).toBe(200);
    expect(await logOf(usd)).toMatchObject({ status: 'failed', error: 'currency_mismatch' });
    const elsewhere = kioskCardBPayment(m, t, { TerminalId: 'another-terminal' });
    expect((await post(elsewhere)).status).toBe(200);
    expect(await logOf(elsewhere)).toMatchObject({ status: 'failed', error: 'terminal_mismatch' });
    expect(await txn(t.id)).toMatchObject({ status: 'Awaiting Payment', receipt_no: null });
    expect(await captures(t.id)).toBe(0);
    const right = kioskCardBPayment(m, t);
    expect((await post(right)).status).toBe(200);
    expect((await txn(t.id)).status).toBe('Complete');
  });

  test('a start whose answer never comes back (the API died after the terminal took the sale): the session was recorded first, so the customer\'s payment is captured by the webhook', async () => {
    // The sale reaches the terminal; its answer is held until the test lets it go.
    const answer = gate();
    const hop = providerHop(cardB.url, async (r) => {
      const res = await r.forward();
      if (r.method === 'POST' && r.path === '/ecr/v1/transactions:sale') await answer.wait();
      return res;
    });
    const slow = await createTestApi({ env: { ...CREDS, CARD_B_BASE_URL: hop.url, CARD_B_WEBHOOK_IPS: PROVIDER_IP } });
    try {
      const sm = await slow.seed('cbheld');
      const token = await slow.deviceToken(sm, 'kiosk');
      const sdb = bindTenant(slow.deps.db, sm.merchant.tenant_database);
      const pending = slow.call('POST', '/api/kiosk/payment/create-intent', { token, deviceKey: true, body: { lines: [{ item_id: sm.items[0]!.id, qty: 1 }] } });
      await answer.reached;
      // What a crash here leaves: the order Awaiting Payment with the session the terminal is running.
      const row = await sdb.selectFrom('transactions').selectAll().where('device_id', '=', sm.kiosk.device_id).executeTakeFirstOrThrow();
      expect({ status: row.status, snapshot: row.payment_snapshot }).toEqual({
        status: 'Awaiting Payment',
        snapshot: { provider: 'card-b', idempotency_key: row.idempotency_key, sessionId: row.idempotency_key, terminalId: sm.kiosk.card_b_terminal_id, started_at: row.payment_snapshot.started_at },
      });
      expect(cardB.session(row.idempotency_key)!.state).toBe('processing');
      await cardB.complete(row.idempotency_key);
      const raw = kioskCardBPayment(sm, row);
      expect((await slow.call('POST', URL_(), { rawBody: raw, ip: PROVIDER_IP })).status).toBe(200);
      expect((await sdb.selectFrom('transactions').select('status').where('id', '=', row.id).executeTakeFirstOrThrow()).status).toBe('Complete');
      // The answer comes back at last: the start does not undo the capture.
      answer.release();
      const r = await pending;
      expect([r.status, r.body.data.status]).toEqual([200, 'Complete']);
    } finally {
      answer.release();
      await slow.close();
      hop.stop();
    }
  });

  test('a payment for another amount than the sale is not captured: stored as failed (amount_mismatch), no commission; a terminal tip (in TipAmount) is captured', async () => {
    const t = await awaitingPayment();
    // An Amount above the sale's is not a tip either: the terminal reports its tip in TipAmount.
    for (const over of [{ Amount: 0.01 }, { Amount: (t.total - 1) / 100 }, { Amount: null }, { Amount: 'abc' }, { Amount: -5, TipAmount: 7.8 }, { Amount: t.total / 100 + 1, TipAmount: -1 }, { Amount: 1e308 }, { Amount: (t.total + 50) / 100 }]) {
      const raw = kioskCardBPayment(m, t, over);
      expect(await post(raw)).toMatchObject({ status: 200, body: { received: true } });
      expect({ over, log: await logOf(raw) }).toMatchObject({ over, log: { status: 'failed', error: 'amount_mismatch', merchant_id: m.merchant.id } });
      expect((await api.deps.db.selectFrom('commission_ledger').select('id').where('source_ref', '=', JSON.parse(raw).EventData.TransactionId).execute()).length).toBe(0);
    }
    expect(await txn(t.id)).toMatchObject({ status: 'Awaiting Payment', receipt_no: null });
    expect(await captures(t.id)).toBe(0);
    const tipped = kioskCardBPayment(m, t, { TipAmount: 0.5 });
    expect((await post(tipped)).status).toBe(200);
    expect(await logOf(tipped)).toMatchObject({ status: 'processed' });
    // The 0.50 the terminal took above the sale is the customer's tip (spec 3: a separate money field).
    expect(await txn(t.id)).toMatchObject({ status: 'Complete', tip_amount: 50, total: t.total + 50 });
    // Commission on what was charged, tip included.
    const ledger = await api.deps.db.selectFrom('commission_ledger').select('commission_amount').where('source_ref', '=', JSON.parse(tipped).EventData.TransactionId).execute();
    expect(ledger).toEqual([{ commission_amount: Math.round(((t.total + 50) * 150) / 10_000) }]);
  });

  test('an order with a tip: the sale sends the tip apart and the webhook reports it beside Amount; captured', async () => {
    if (lastKey) await cardB.complete(lastKey).catch(() => undefined);
    const r = await api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body: { lines: [{ item_id: item('Espresso').id, qty: 1 }], tip_amount: 50 } });
    const t = r.body.data as { id: string; order_no: number; total: number; idempotency_key: string };
    lastKey = t.idempotency_key;
    expect(cardB.session(t.idempotency_key)).toMatchObject({ amount: t.total - 50, tipAmount: 50 });
    const raw = kioskCardBPayment(m, t, { Amount: (t.total - 50) / 100, TipAmount: 0.5 });
    expect((await post(raw)).status).toBe(200);
    expect(await logOf(raw)).toMatchObject({ status: 'processed' });
    expect((await txn(t.id)).status).toBe('Complete');
  });

  test('a body that is not JSON from an allowed address is stored as failed and acknowledged', async () => {
    const raw = 'EventTypeId=1796&not json';
    const r = await post(raw, PROVIDER_IP, { 'content-type': 'text/plain' });
    expect(r).toMatchObject({ status: 200, body: { received: true } });
    expect(await logOf(raw)).toMatchObject({ status: 'failed', error: 'not_json', payload: null, merchant_id: null });
  });

  test('an event that resolves to no tenant is stored as location_not_resolved and dropped; the answer is the same', async () => {
    const t = await awaitingPayment();
    const raw = kioskCardBPayment(m, t, { MerchantTrns: `${crypto.randomUUID()}:${t.order_no}`, Tags: [crypto.randomUUID(), 'kiosk'], SourceCode: 'NO-SUCH-SOURCE' });
    const r = await post(raw);
    expect(r).toMatchObject({ status: 200, text: '{"received":true}' });
    expect(await logOf(raw)).toMatchObject({ status: 'location_not_resolved', merchant_id: null });
    expect((await txn(t.id)).status).toBe('Awaiting Payment');
  });

  test('tenant from Tags[0] first, and from the physical source code last', async () => {
    const a = await awaitingPayment();
    const viaTag = kioskCardBPayment(m, a, { Tags: [m.locations[0]!.id], MerchantTrns: 'unrelated' });
    expect((await post(viaTag)).status).toBe(200);
    expect((await txn(a.id)).status).toBe('Complete');

    await tdb().updateTable('locations').set({ payment_settings: JSON.stringify({ card_b: { source_code: `SRC-${m.merchant.id.slice(0, 8)}` } }) }).where('id', '=', m.locations[0]!.id).execute();
    try {
      const b = await awaitingPayment();
      const viaSource = kioskCardBPayment(m, b, { MerchantTrns: `Order ${b.order_no}`, SourceCode: `SRC-${m.merchant.id.slice(0, 8)}` });
      expect((await post(viaSource)).status).toBe(200);
      expect((await txn(b.id)).status).toBe('Complete');
      expect(await logOf(viaSource)).toMatchObject({ status: 'processed', merchant_id: m.merchant.id });
    } finally {
      await tdb().updateTable('locations').set({ payment_settings: JSON.stringify({}) }).where('id', '=', m.locations[0]!.id).execute();
    }
  });

  test('a transaction the tenant does not have: logged, stored as failed, still 2xx', async () => {
    const raw = kioskCardBPayment(m, { order_no: 999_999, total: 100 });
    expect(await post(raw)).toMatchObject({ status: 200, body: { received: true } });
    expect(await logOf(raw)).toMatchObject({ status: 'failed', error: 'transaction_not_found', merchant_id: m.merchant.id });
  });

  test('reversal (rule 6): ParentId is the original; claimed once; one adjustment per entry with reason card_b_reversal', async () => {
    const t = await awaitingPayment();
    const pay = kioskCardBPayment(m, t);
    expect((await post(pay)).status).toBe(200);
    const parentId = JSON.parse(pay).EventData.TransactionId as string;
    const eventId = crypto.randomUUID();
    const reversal = (amount: number) => cardBReversal(m, parentId, amount, eventId);
    const first = reversal(t.total / 100);
    expect((await post(first, PROVIDER_IP, {}, 1797)).status).toBe(200);
    expect(await logOf(first)).toMatchObject({ status: 'processed', event_type: 'TRANSACTION_REVERSAL_CREATED' });
    const rows = await api.deps.db.selectFrom('commission_ledger').selectAll().where('source', '=', 'card_b_terminal').where((eb) => eb.or([eb('source_ref', '=', parentId), eb('source_ref', '=', eventId)])).orderBy('created_at').execute();
    const entry = rows.find((r) => !r.is_adjustment)!;
    expect(rows.filter((r) => r.is_adjustment).map((r) => [r.adjusts_id, r.commission_amount, r.reason, r.source_ref])).toEqual([[entry.id, -entry.commission_amount, 'card_b_reversal', eventId]]);
    // Another delivery of the same reversal (other bytes, past duplicate detection): the claim stops it.
    const second = reversal(t.total / 100 + 0.01);
    expect((await post(second, PROVIDER_IP, {}, 1797)).status).toBe(200);
    expect(await logOf(second)).toMatchObject({ status: 'duplicate' });
    expect((await api.deps.db.selectFrom('commission_ledger').select('id').where('adjusts_id', '=', entry.id).execute()).length).toBe(1);
    expect(await api.deps.db.selectFrom('webhook_claims').select(['status']).where('provider', '=', 'card-b').where('event_id', '=', eventId).executeTakeFirst()).toEqual({ status: 'processed' });
  });

  test('two partial reversals of one payment (a third, then the rest) claw back the commission once in total, never more than was earned', async () => {
    const t = await awaitingPayment();
    const pay = kioskCardBPayment(m, t);
    expect((await post(pay)).status).toBe(200);
    const parentId = JSON.parse(pay).EventData.TransactionId as string;
    const entry = await api.deps.db.selectFrom('commission_ledger').selectAll().where('source', '=', 'card_b_terminal').where('source_ref', '=', parentId).executeTakeFirstOrThrow();
    expect(entry.commission_amount).toBe(Math.round((t.total * 150) / 10_000));
    const reversal = (amount: number) => cardBReversal(m, parentId, amount);
    const third = Math.round(t.total / 3);
    const adjustments = () => api.deps.db.selectFrom('commission_ledger').select('commission_amount').where('adjusts_id', '=', entry.id).orderBy('created_at').execute();
    expect((await post(reversal(third / 100), PROVIDER_IP, {}, 1797)).status).toBe(200);
    expect((await adjustments()).map((r) => r.commission_amount)).toEqual([-Math.round((third * 150) / 10_000)]);
    expect((await post(reversal((t.total - third) / 100), PROVIDER_IP, {}, 1797)).status).toBe(200);
    const rows = await adjustments();
    expect(rows.length).toBe(2);
    expect(entry.commission_amount + rows.reduce((sum, r) => sum + r.commission_amount, 0)).toBe(0);
    // A further reversal finds nothing left to claw back: processed, no adjustment.
    const extra = reversal(1);
    expect((await post(extra, PROVIDER_IP, {}, 1797)).status).toBe(200);
    expect(await logOf(extra)).toMatchObject({ status: 'processed' });
    expect((await adjustments()).length).toBe(2);
  });

  describe('the clawback follows the entry, not the rate configured when the reversal comes', () => {
    /** A reversal handled after a redeploy with another CARD_B_COMMISSION_BPS: the handler with the API's real deps. */
    const reverseAt = async (bps: number, raw: string) => (await handleCardBWebhook({ ...webhookHandlerDeps(api.deps), commissionBps: bps }, raw, '1797')).status;
    /** A kiosk sale paid over HTTP at the API's 150 bps: its ledger entry. */
    const sale = async () => {
      const t = await awaitingPayment();
      const pay = kioskCardBPayment(m, t);
      expect((await post(pay)).status).toBe(200);
      const parentId = JSON.parse(pay).EventData.TransactionId as string;
      const entry = await api.deps.db.selectFrom('commission_ledger').selectAll().where('source', '=', 'card_b_terminal').where('source_ref', '=', parentId).where('is_adjustment', '=', false).executeTakeFirstOrThrow();
      return { t, parentId, entry };
    };
    const adjustments = (entryId: string) =>
      api.deps.db.selectFrom('commission_ledger').select(['commission_amount', 'base_amount', 'reason']).where('adjusts_id', '=', entryId).orderBy('created_at').orderBy('id').execute();

    test('a sale at 150 bps fully reversed at 50 bps and at 0 bps: exactly the entry\'s commission is clawed back', async () => {
      for (const bps of [50, 0]) {
        const { t, parentId, entry } = await sale();
        expect([t.total, entry.commission_amount]).toEqual([280, 4]);
        expect(await reverseAt(bps, cardBReversal(m, parentId, t.total / 100))).toBe('processed');
        expect((await adjustments(entry.id)).map((a) => a.commission_amount)).toEqual([-4]);
        // The entry keeps what its commission was computed on; the adjustment, what it reversed.
        expect(entry.base_amount).toBe(280);
        expect(await adjustments(entry.id)).toEqual([{ commission_amount: -4, base_amount: 280, reason: 'card_b_reversal' }]);
      }
    });

    test('a partial reversal claws back the entry\'s share; three partial reversals together give back exactly the entry, never more', async () => {
      const { parentId, entry } = await sale();
      // 92 of 280 cents: round(4 x 92 / 280) = 1 (at today's 50 bps it would be round(0.46) = 0).
      expect(await reverseAt(50, cardBReversal(m, parentId, 0.92))).toBe('processed');
      expect((await adjustments(entry.id)).map((a) => a.commission_amount)).toEqual([-1]);
      // 187 of 280 reversed in all: round(4 x 187 / 280) = 3, so 2 more (each part rounded alone gives 1).
      expect(await reverseAt(50, cardBReversal(m, parentId, 0.95))).toBe('processed');
      // The rest, at 0 bps: the entry's last cent.
      expect(await reverseAt(0, cardBReversal(m, parentId, 0.93))).toBe('processed');
      expect(await adjustments(entry.id)).toEqual([
        { commission_amount: -1, base_amount: 92, reason: 'card_b_reversal' },
        { commission_amount: -2, base_amount: 95, reason: 'card_b_reversal' },
        { commission_amount: -1, base_amount: 93, reason: 'card_b_reversal' },
      ]);
      // More reversed than was sold: nothing is left to give back (processed, no adjustment).
      expect(await reverseAt(150, cardBReversal(m, parentId, 2.8))).toBe('processed');
      expect((await adjustments(entry.id)).length).toBe(3);
    });

    test('small reversals whose shares round to 0 are recorded (0) and counted: 30 + 31 + 219 of 280 cents give back the entry\'s 4', async () => {
      const { parentId, entry } = await sale();
      for (const major of [0.3, 0.31, 2.19]) expect(await reverseAt(150, cardBReversal(m, parentId, major))).toBe('processed');
      // round(4 x 30 / 280) = 0; round(4 x 61 / 280) = 1; round(4 x 280 / 280) = 4.
      expect(await adjustments(entry.id)).toEqual([
        { commission_amount: 0, base_amount: 30, reason: 'card_b_reversal' },
        { commission_amount: -1, base_amount: 31, reason: 'card_b_reversal' },
        { commission_amount: -3, base_amount: 219, reason: 'card_b_reversal' },
      ]);
    });

    test('an entry written before its base was kept (base_amount null) keeps the rate-based clawback', async () => {
      const older = async () => {
        const s = await sale();
        await api.deps.db.updateTable('commission_ledger').set({ base_amount: null }).where('id', '=', s.entry.id).execute();
        return s;
      };
      // The rate unchanged: the whole commission.
      const a = await older();
      expect(await reverseAt(150, cardBReversal(m, a.parentId, 2.8))).toBe('processed');
      expect(await adjustments(a.entry.id)).toEqual([{ commission_amount: -4, base_amount: 280, reason: 'card_b_reversal' }]);
      // The rate changed: the rate now on the amount reversed (round(280 x 50 / 10000) = 1), as before.
      const b = await older();
      expect(await reverseAt(50, cardBReversal(m, b.parentId, 2.8))).toBe('processed');
      expect(await adjustments(b.entry.id)).toEqual([{ commission_amount: -1, base_amount: 280, reason: 'card_b_reversal' }]);
    });
  });

  test('a reversal without ParentId stops with a warning', async () => {
    const raw = JSON.stringify({ EventTypeId: 1797, EventData: { TransactionId: crypto.randomUUID(), MerchantTrns: `${m.locations[0]!.id}:1`, Amount: 1, Tags: [] } });
    expect((await post(raw, PROVIDER_IP, {}, 1797)).status).toBe(200);
    expect(await logOf(raw)).toMatchObject({ status: 'ignored' });
  });

  test('the simulator delivers its own webhook over a real socket and the kiosk sees Complete', async () => {
    // The simulator verifies the URL first: the API answers its handshake with this key.
    const sim = startCardBSimulator({ clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET, webhookKey: 'cb-live-key-123' });
    const live = await createTestApi({ env: { ...CREDS, CARD_B_BASE_URL: sim.url, CARD_B_WEBHOOK_IPS: '127.0.0.1', CARD_B_WEBHOOK_KEY: 'cb-live-key-123' } });
    // On a port the system picks (one probed and released first could be taken meanwhile); the simulator is told it after.
    const server = live.app.listen({ port: 0, hostname: '127.0.0.1' });
    sim.setWebhookUrl(`http://127.0.0.1:${live.app.server!.port}${URL_()}`);
    try {
      const lm = await live.seed('cblive');
      const token = await live.deviceToken(lm, 'kiosk');
      const created = await live.call('POST', '/api/kiosk/payment/create-intent', { token, deviceKey: true, body: { lines: [{ item_id: lm.items[0]!.id, qty: 1 }] } });
      expect(created.body.data.status).toBe('Awaiting Payment');
      await sim.complete(created.body.data.idempotency_key);
      expect(sim.webhooks.at(-1)!.result).toEqual({ status: 200 });
      // The kiosk's own poll sees the webhook's capture: Complete, without the poll capturing.
      const seen = await live.call('GET', `/api/kiosk/payment/session-status?idempotency_key=${created.body.data.idempotency_key}`, { token, deviceKey: true });
      expect(seen.body.data.status).toBe('Complete');
      const steps = await bindTenant(live.deps.db, lm.merchant.tenant_database).selectFrom('transaction_steps').select(['step', 'outcome']).where('transaction_id', '=', created.body.data.id).where('step', '=', 'capture').execute();
      expect(steps).toEqual([{ step: 'capture', outcome: 'webhook' }]);
    } finally {
      await server.stop();
      await live.close();
      await sim.stop();
    }
  });
});
