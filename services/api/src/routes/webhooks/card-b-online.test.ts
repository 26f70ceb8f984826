import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { bindTenant } from '@pos/db';
import { startCardBSimulator, type CardBSimulator } from '@pos/providers/payments';
import { pollProvider } from '@pos/core/payments/provider-outcome';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

// card-b rule 5, online path (the legacy hosted checkout by `orderCode`): the simulator delivers its
// own webhook over a socket; the platform verifies the order's transactions with the provider, captures
// a pre-authorisation there, and completes the transaction exactly once.
let sim: CardBSimulator;
let api: TestApi;
let m: DemoSeedResult;
let server: { stop(): unknown };
let hookUrl: string;
const CREDS = { CARD_B_CLIENT_ID: 'cbo-test', CARD_B_CLIENT_SECRET: 'cbo-test-secret' };
/** The verification key the API answers to the simulator's handshake (PROTOCOLS card-b). */
const KEY = 'cbo-verification-key';

beforeAll(async () => {
  // The API listens on a port the system picks (a port probed and released first could be taken by the
  // simulator or another test meanwhile); the simulator is told the API's address once it listens.
  sim = startCardBSimulator({ clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET, webhookKey: KEY });
  api = await createTestApi({ env: { ...CREDS, CARD_B_BASE_URL: sim.url, CARD_B_WEBHOOK_IPS: '127.0.0.1', CARD_B_WEBHOOK_KEY: KEY, CARD_B_COMMISSION_BPS: '100' } });
  server = api.app.listen({ port: 0, hostname: '127.0.0.1' });
  hookUrl = `http://127.0.0.1:${api.app.server!.port}/api/card-b-webhook/BE/1796`;
  sim.setWebhookUrl(hookUrl);
  m = await api.seed('cbonline');
});
afterAll(async () => {
  await server.stop();
  await api.close();
  await sim.stop();
});

const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);
const txn = (id: string) => tdb().selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
/** A delivery from the provider's address (over the socket: the listening app reads the peer address from it). */
const deliver = async (raw: string) => (await fetch(hookUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw })).status;
const captures = async (id: string) => (await tdb().selectFrom('transaction_steps').select('step').where('transaction_id', '=', id).where('step', '=', 'capture').execute()).length;
let seq = 0;

/**
 * An online-ordering transaction on the legacy card-b hosted checkout, awaiting payment: the order is
 * created at the provider with the tags the online path reads (`Tags[0]` location, `Tags[1]` channel).
 */
async function awaitingOnline(opts: { preauth?: boolean } = {}) {
  const location = m.locations[0]!.id;
  const orderNo = 800_000 + ++seq;
  const total = 1250;
  const { orderCode } = await api.deps.payments.cardB!.createOrder({
    amount: total,
    customerTrns: `Order ${orderNo}`,
    merchantTrns: `${location}:${orderNo}`,
    tags: [location, 'online_ordering'],
    checkoutUrl: 'https://checkout.example.test',
    preauth: opts.preauth ?? false,
  });
  const id = Bun.randomUUIDv7();
  const key = `idemp_online-${seq}_${Date.now()}`;
  await tdb()
    .insertInto('transactions')
    .values({
      id,
      location_id: location,
      device_id: null,
      channel: 'online_ordering',
      order_no: orderNo,
      status: 'Awaiting Payment',
      order_status: null,
      payment_provider: 'card-b',
      payment_snapshot: JSON.stringify({ provider: 'card-b', idempotency_key: key, orderCode }),
      idempotency_key: key,
      all_idempotency_keys: [key],
      invalid_idempotency_keys: [],
      receipt_no: null,
      subtotal: total,
      discount: 0,
      vat: 0,
      total,
      by_vat_rate: JSON.stringify([]),
      offers: JSON.stringify([]),
      menu_version: null,
      customer_id: null,
      loyalty_token: null,
      cart_session_id: null,
      created_at: new Date(),
      updated_at: new Date(),
    })
    .execute();
  return { id, orderCode, orderNo, total, location };
}

describe('card-b online path: verify by orderCode', () => {
  test('the customer pays the hosted checkout: the webhook is verified against the order and the transaction completes', async () => {
    const t = await awaitingOnline();
    await sim.payOrder(t.orderCode);
    expect(sim.webhooks.at(-1)!.result).toEqual({ status: 200 });
    const after = await txn(t.id);
    expect(after.status).toBe('Complete');
    const paid = sim.order(t.orderCode)!.transactions[0]!;
    expect(after.payment_snapshot).toMatchObject({ orderCode: t.orderCode, transactionId: paid.TransactionId, amount: t.total, verified: 'order' });
    expect(await captures(t.id)).toBe(1);
    const stored = await api.deps.db.selectFrom('webhook_logs').select(['status', 'merchant_id']).where('type', '=', 'card_b_webhook').where(sql<string>`fields->>'order_code'`, '=', t.orderCode).executeTakeFirst();
    expect(stored).toMatchObject({ status: 'processed', merchant_id: m.merchant.id });
  });

  test('a webhook claiming payment for an order the provider has not been paid for captures nothing', async () => {
    const t = await awaitingOnline();
    const body = JSON.stringify({
      EventTypeId: 1796,
      EventData: { Amount: t.total / 100, OrderCode: t.orderCode, StatusId: 'F', TransactionId: crypto.randomUUID(), ParentId: null, MerchantTrns: `${t.location}:${t.orderNo}`, CustomerTrns: `Order ${t.orderNo} (not paid)`, CurrencyCode: '978', TransactionTypeId: 5, Tags: [t.location, 'online_ordering'] },
      Created: new Date().toISOString(),
      MessageId: crypto.randomUUID(),
    });
    expect(await deliver(body)).toBe(200);
    expect((await txn(t.id)).status).toBe('Awaiting Payment');
    expect(await captures(t.id)).toBe(0);
    // Once the customer really pays, the provider's own webhook completes it (it differs from the claim
    // above in CustomerTrns, so rule 3's duplicate detection does not take it for the same event).
    await sim.payOrder(t.orderCode);
    expect((await txn(t.id)).status).toBe('Complete');
  });

  test('a pre-authorisation is captured at the provider once, then the transaction completes once, whatever the deliveries', async () => {
    const t = await awaitingOnline({ preauth: true });
    await sim.payOrder(t.orderCode);
    const order = sim.order(t.orderCode)!;
    const auth = order.transactions.find((x) => x.TransactionTypeId === 1)!;
    const capture = order.transactions.find((x) => x.TransactionTypeId === 0)!;
    expect(capture).toMatchObject({ ParentId: auth.TransactionId, StatusId: 'F', Amount: t.total / 100 });
    expect(sim.captures.filter((c) => c === capture.TransactionId)).toHaveLength(1);
    const after = await txn(t.id);
    expect(after.status).toBe('Complete');
    expect(after.payment_snapshot).toMatchObject({ orderCode: t.orderCode, transactionId: capture.TransactionId, preauthTransactionId: auth.TransactionId, amount: t.total });

    // The provider's webhook delivered again (and variants of it, past duplicate detection), concurrently.
    const original = sim.webhooks.at(-1)!.body as any;
    const variants = Array.from({ length: 6 }, (_, i) => JSON.stringify({ ...original, MessageId: crypto.randomUUID(), EventData: { ...original.EventData, CustomerTrns: `Order ${t.orderNo} #${i}` } }));
    const answers = await Promise.all(variants.map((raw) => deliver(raw)));
    expect(answers).toEqual(variants.map(() => 200));
    expect(sim.order(t.orderCode)!.transactions.filter((x) => x.TransactionTypeId === 0)).toHaveLength(1);
    expect(await captures(t.id)).toBe(1);
    // The pre-authorisation's event names the pre-authorisation; the order was captured with its capture:
    // one ledger row, under the capture, also when the provider reports the capture itself.
    const ledger = () => api.deps.db.selectFrom('commission_ledger').select(['source_ref', 'is_adjustment']).where('source_ref', 'in', [auth.TransactionId, capture.TransactionId]).execute();
    expect(await ledger()).toEqual([{ source_ref: capture.TransactionId, is_adjustment: false }]);
    const captureEvent = JSON.stringify({ ...original, MessageId: crypto.randomUUID(), EventData: { ...original.EventData, TransactionId: capture.TransactionId, ParentId: auth.TransactionId, TransactionTypeId: 0 } });
    expect(await deliver(captureEvent)).toBe(200);
    expect(await ledger()).toEqual([{ source_ref: capture.TransactionId, is_adjustment: false }]);
  });

  test('a pre-authorisation whose webhook was lost: the back office\'s verify captures it at the provider and completes the order, as the storefront\'s verify does', async () => {
    const t = await awaitingOnline({ preauth: true });
    // The provider's webhook finds nobody listening: lost (card-b does not send it again after a 2xx-less failure here).
    // Sent to a port nothing listens on (the API's own stays open: a stopped one could be taken before it listens again).
    sim.setWebhookUrl('http://127.0.0.1:1/api/card-b-webhook/BE/1796');
    try {
      await sim.payOrder(t.orderCode);
    } finally {
      sim.setWebhookUrl(hookUrl);
    }
    expect(sim.webhooks.at(-1)!.result).toMatchObject({ error: expect.any(String) });
    expect((await txn(t.id)).status).toBe('Awaiting Payment');
    const token = await api.ownerToken(m);
    const r = await api.call('POST', `/api/back-office/transactions/${t.id}/verify-payment-status`, { token });
    expect([r.status, r.body.data.status]).toEqual([200, 'Complete']);
    const order = sim.order(t.orderCode)!;
    const capture = order.transactions.find((x) => x.TransactionTypeId === 0)!;
    expect(sim.captures.filter((c) => c === capture.TransactionId)).toHaveLength(1);
    expect(await captures(t.id)).toBe(1);
  });

  test('the poll of an online card-b payment (no terminal session) asks the order: paid, authorised, or still processing', async () => {
    const providers = api.deps.payments;
    const open = await awaitingOnline();
    expect(await pollProvider(providers, 'card-b', { orderCode: open.orderCode })).toEqual({ outcome: 'processing', snapshot: {} });
    const pre = await awaitingOnline({ preauth: true });
    // Paid without the platform hearing of it (the webhook is not delivered to this order's poll).
    const o = sim.order(pre.orderCode)!;
    o.stateId = 3;
    o.transactions.push({ TransactionId: 'auth-1', OrderCode: pre.orderCode, StatusId: 'F', TransactionTypeId: 1, Amount: 12.5, ParentId: null });
    expect(await pollProvider(providers, 'card-b', { orderCode: pre.orderCode })).toEqual({ outcome: 'authorised', snapshot: { orderCode: pre.orderCode, preauthTransactionId: 'auth-1', amount: 1250 } });
  });
});
