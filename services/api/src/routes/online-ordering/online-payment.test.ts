import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { LOCAL_DEBIT_NAME_REQUIRED, ORDERING_CLOSED, TIMESLOT_UNAVAILABLE } from '@pos/core/online-ordering/online-payment';
import { DELIVERY_NOT_OFFERED, PICKUP_NOT_OFFERED } from '@pos/domain';
import { startCardASimulator, startPlatformASimulator, type CardASimulator, type PlatformASimulator } from '@pos/providers/payments';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

// Online ordering payments (spec 3 "Online ordering payment creation", "Verification"): the card-a
// simulator sends its signed webhook to the running API over a socket, as the provider does.
let cardA: CardASimulator;
let platformA: PlatformASimulator;
let api: TestApi;
let server: { stop(): unknown };
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
const SECRET = 'whsec_online_0123456789';
const CREDS = { CARD_A_SECRET_KEY: 'sk_test_online', PLATFORM_A_ACCESS_TOKEN: 'pa-online-token' };

beforeAll(async () => {
  cardA = startCardASimulator({ secretKey: CREDS.CARD_A_SECRET_KEY, webhookSecret: SECRET });
  platformA = startPlatformASimulator({ accessToken: CREDS.PLATFORM_A_ACCESS_TOKEN });
  api = await createTestApi({ env: { ...CREDS, CARD_A_BASE_URL: cardA.url, CARD_A_WEBHOOK_SECRET: SECRET, PLATFORM_A_BASE_URL: platformA.url } });
  // The API listens on a port the system picks (a port probed and released first could be taken meanwhile: EADDRINUSE in CI); the simulator is told it after.
  server = api.app.listen({ port: 0, hostname: '127.0.0.1' });
  cardA.setWebhookUrl(`http://127.0.0.1:${api.app.server!.port}/api/card-a-webhook/BE`);
  a = await api.seed('op-a');
  b = await api.seed('op-b');
  owner = await api.ownerToken(a);
  // Table QR ordering on at a's first location (its table orders are tested below).
  await api.call('PUT', `/api/back-office/qr-ordering/${a.locations[0]!.id}`, { token: owner, body: { enabled: true } });
}, 60_000);
// The API listens (the simulator's webhooks reach it), so requests sent in process have no socket address
// and all count as one client for the per-address throttles of payment starts (30 a minute a location) and of
// card attempts: each test starts with a fresh count. The throttles themselves are tested in
// online-payments-adversarial.test.ts and online-card-attempts-adversarial.test.ts.
beforeEach(async () => {
  const counts = [...(await api.deps.redis.keys('throttle:online-payment:60:unknown|*')), ...(await api.deps.redis.keys('throttle:online-card-attempt-address:*:unknown'))];
  if (counts.length) await api.deps.redis.del(...counts);
});
afterAll(async () => {
  await cardA.idle();
  await server.stop();
  await api.close();
  await cardA.stop();
  await platformA.stop();
});

const tdb = () => bindTenant(api.deps.db, a.merchant.tenant_database);
const loc0 = () => a.locations[0]!.id;
const line = () => ({ item_id: a.items[0]!.id, qty: 2 });
const pay = (body: Record<string, unknown>, loc = loc0(), slug = a.merchant.slug) => api.call('POST', `/api/online-ordering/${slug}/${loc}/payment`, { body });
const verify = (transaction_id: string, loc = loc0(), slug = a.merchant.slug) => api.call('POST', `/api/online-ordering/${slug}/${loc}/verify-payment`, { body: { transaction_id } });
const txCount = async () => Number((await tdb().selectFrom('transactions').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
const row = (id: string) => tdb().selectFrom('transactions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
async function until<T>(f: () => Promise<T>, ok: (v: T) => boolean, ms = 8000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (ok(v) || Date.now() > end) return v;
    await Bun.sleep(50);
  }
}

describe('card-a (the default for online ordering)', () => {
  test('a card order: an intent for the server-priced total, paid in the browser, completed by the signed webhook', async () => {
    const r = await pay({ lines: [line()], customer: { name: 'Ann Peeters', email: 'ann@example.com' } });
    expect(r.status).toBe(200);
    const total = a.items[0]!.unit_price * 2;
    expect(r.body.data).toEqual({
      transaction_id: expect.any(String),
      order_no: expect.any(Number),
      total,
      currency: 'EUR',
      provider: 'card-a',
      payment: { id: expect.stringMatching(/^pi_/), client_secret: expect.any(String), amount: total, created: expect.any(Number), status: 'requires_payment_method' },
    });
    const id = r.body.data.transaction_id;
    const t = await row(id);
    expect(t).toMatchObject({ channel: 'online_ordering', status: 'Awaiting Payment', payment_provider: 'card-a', total, customer_name: 'Ann Peeters', dining_option: 'Pickup', device_id: null });
    expect(t.payment_snapshot).toMatchObject({ provider: 'card-a', id: r.body.data.payment.id });
    expect(cardA.intent(r.body.data.payment.id)!.metadata).toMatchObject({ location_id: loc0(), transaction_id: id });
    // Not paid yet: verify answers the current status and captures nothing.
    expect((await verify(id)).body.data).toMatchObject({ transaction_id: id, status: 'Awaiting Payment', receipt_no: null });

    await cardA.confirmIntent(r.body.data.payment.id, r.body.data.payment.client_secret);
    await cardA.idle();
    const done = await until(() => row(id), (x) => x.status === 'Complete');
    expect(done.status).toBe('Complete');
    expect(done.receipt_no).toBeGreaterThan(0);
    expect(done.order_status).toBe('Queued');
    expect(done.capacity_slot_at).not.toBeNull();
    expect((await verify(id)).body.data).toEqual({ transaction_id: id, order_no: t.order_no, status: 'Complete', receipt_no: done.receipt_no, total });
  });

  test('verify alone completes a paid intent (webhook lost): the provider is asked, never believed', async () => {
    const r = await pay({ lines: [line()] });
    const id = r.body.data.transaction_id;
    // Paid at the provider, but no webhook arrived.
    const intent = cardA.intent(r.body.data.payment.id)!;
    (intent as { status: string }).status = 'succeeded';
    expect((await verify(id)).body.data).toMatchObject({ status: 'Complete' });
  });

  test('the local debit scheme needs the customer full name (intent by default): 422 and nothing written', async () => {
    const before = await txCount();
    for (const customer of [undefined, { name: 'Ann' }, { name: '   ' }]) {
      const r = await pay({ lines: [line()], payment_method: 'local_debit', ...(customer ? { customer } : {}) });
      expect(r.status).toBe(422);
      expect(r.body.errors).toEqual({ 'customer.name': [LOCAL_DEBIT_NAME_REQUIRED] });
    }
    expect(await txCount()).toBe(before);
    const ok = await pay({ lines: [line()], payment_method: 'local_debit', customer: { name: 'Ann Peeters' } });
    expect(ok.status).toBe(200);
    expect(ok.body.data.payment).toEqual({ id: expect.stringMatching(/^pi_/), client_secret: expect.any(String), amount: a.items[0]!.unit_price * 2, created: expect.any(Number), status: 'requires_payment_method' });
    expect(cardA.intent(ok.body.data.payment.id)!.payment_method_types).toEqual(['local_debit']);
  });

  test('with the intent setting off, the local debit scheme goes through a hosted checkout; verify reads the session intent', async () => {
    await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { local_debit_intent: false } });
    const r = await pay({ lines: [line()], payment_method: 'local_debit' });
    expect(r.status).toBe(200);
    expect(r.body.data.payment).toEqual({ id: expect.stringMatching(/^cs_/), url: expect.stringContaining('/_sim/checkout/') });
    const id = r.body.data.transaction_id;
    await cardA.payCheckout(r.body.data.payment.id);
    await cardA.idle();
    expect((await until(() => verify(id), (x) => x.body.data.status === 'Complete')).body.data.status).toBe('Complete');
    await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { local_debit_intent: true } });
  });

  // card-a (API 2022-08-01 on): a session has no intent until the customer pays; the intent is then born
  // with `payment_intent_data[metadata]`, which leads its webhook to the transaction.
  const logsOf = (intent: string, type: string) =>
    api.deps.db.selectFrom('webhook_logs').select('status').where('provider', '=', 'card-a').where('event_type', '=', type).where(sql<string>`payload->'data'->'object'->>${type === 'checkout.session.completed' ? 'payment_intent' : 'id'}`, '=', intent).execute();
  const ledgerOf = (intent: string) => api.deps.db.selectFrom('commission_ledger').select('id').where('source_ref', '=', intent).execute();

  test('a hosted checkout session is stored without an intent; the signed webhook finds the order by its metadata and captures once', async () => {
    await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { local_debit_intent: false } });
    try {
      const r = await pay({ lines: [line()], payment_method: 'local_debit' });
      expect(r.status).toBe(200);
      const id = r.body.data.transaction_id;
      const sessionId = r.body.data.payment.id as string;
      const created = await row(id);
      expect(created.status).toBe('Awaiting Payment');
      expect(created.payment_snapshot).toEqual({ provider: 'card-a', idempotency_key: created.idempotency_key, sessionId, id: null });
      await cardA.payCheckout(sessionId);
      await cardA.idle();
      const done = await until(() => row(id), (x) => x.status === 'Complete');
      expect(done.status).toBe('Complete');
      const intentId = done.payment_snapshot.id as string;
      expect(intentId).toMatch(/^pi_/);
      const intent = cardA.intent(intentId)!;
      expect(intent.metadata).toMatchObject({ location_id: loc0(), transaction_id: id });
      expect(intent.amount).toBe(r.body.data.total);
      expect(done.payment_snapshot).toMatchObject({ provider: 'card-a', sessionId, id: intentId, intent_status: 'succeeded' });
      expect((await logsOf(intentId, 'payment_intent.succeeded')).map((l) => l.status)).toEqual(['processed']);
      // Not an event spec 3 acts on for an order: stored and acknowledged.
      expect((await logsOf(intentId, 'checkout.session.completed')).map((l) => l.status)).toEqual(['ignored']);
      // card-a sending the success again (a new event id) changes nothing: one receipt, one ledger row.
      await cardA.sendEvent('payment_intent.succeeded', { object: 'payment_intent', ...intent, livemode: false });
      expect((await logsOf(intentId, 'payment_intent.succeeded')).map((l) => l.status)).toEqual(['processed', 'processed']);
      const again = await row(id);
      expect([again.status, again.receipt_no, again.updated_at]).toEqual(['Complete', done.receipt_no, done.updated_at]);
      expect(await ledgerOf(intentId)).toHaveLength(1);
    } finally {
      await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { local_debit_intent: true } });
    }
  });

  test('verify of a hosted checkout: unpaid session = not paid; paid with the webhook lost = the session intent is read and captured', async () => {
    await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { local_debit_intent: false } });
    try {
      const r = await pay({ lines: [line()], payment_method: 'local_debit' });
      const id = r.body.data.transaction_id;
      const t = await row(id);
      expect((await verify(id)).body.data).toEqual({ transaction_id: id, order_no: t.order_no, status: 'Awaiting Payment', receipt_no: null, total: t.total });
      expect((await row(id)).payment_snapshot.id).toBeNull();
      await cardA.payCheckout(r.body.data.payment.id, { webhooks: false });
      const v = await verify(id);
      const done = await row(id);
      expect(v.body.data).toEqual({ transaction_id: id, order_no: t.order_no, status: 'Complete', receipt_no: done.receipt_no, total: t.total });
      expect(done.receipt_no).toBeGreaterThan(0);
      expect(done.payment_snapshot.id).toMatch(/^pi_/);
      // A second verify captures nothing more.
      expect((await verify(id)).body.data).toEqual(v.body.data);
      expect((await row(id)).updated_at).toEqual(done.updated_at);
    } finally {
      await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { local_debit_intent: true } });
    }
  });
});

describe('free, test mode, platform-a', () => {
  test('a location in payment test mode: synthetic snapshot, verified after the response', async () => {
    await tdb().updateTable('locations').set({ payment_settings: JSON.stringify({ test_mode: true }) }).where('id', '=', loc0()).execute();
    const r = await pay({ lines: [line()] });
    expect(r.body.data).toMatchObject({ provider: null, payment: { id: `free_${r.body.data.transaction_id}`, is_free: true } });
    const done = await until(() => row(r.body.data.transaction_id), (x) => x.status === 'Complete');
    expect(done).toMatchObject({ status: 'Complete', is_test: true });
    expect((await verify(r.body.data.transaction_id)).body.data.status).toBe('Complete');
    await tdb().updateTable('locations').set({ payment_settings: JSON.stringify({}) }).where('id', '=', loc0()).execute();
  });

  test('the local debit full name is card-a\'s rule: a test-mode order or a platform-a payment takes the order without one', async () => {
    expect((await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { local_debit_intent: true } })).status).toBe(200);
    try {
      // Before: 422 on customer.name in both, ahead of rule 1 (test mode) and of the provider override.
      await tdb().updateTable('locations').set({ payment_settings: JSON.stringify({ test_mode: true }) }).where('id', '=', loc0()).execute();
      const test = await pay({ lines: [line()], payment_method: 'local_debit', customer: { name: 'Ann' } });
      expect([test.status, test.body.data?.provider, test.body.data?.payment?.is_free]).toEqual([200, null, true]);
      await tdb().updateTable('locations').set({ payment_settings: JSON.stringify({ platform_a: { active: true, location_id: 'PA-LOC-1' } }) }).where('id', '=', loc0()).execute();
      const pa = await pay({ lines: [line()], payment_method: 'local_debit' });
      expect([pa.status, pa.body.data?.provider]).toEqual([200, 'platform-a']);
      // card-a still needs it.
      await tdb().updateTable('locations').set({ payment_settings: JSON.stringify({}) }).where('id', '=', loc0()).execute();
      const card = await pay({ lines: [line()], payment_method: 'local_debit', customer: { name: 'Ann' } });
      expect([card.status, card.body.errors]).toEqual([422, { 'customer.name': [LOCAL_DEBIT_NAME_REQUIRED] }]);
    } finally {
      await tdb().updateTable('locations').set({ payment_settings: JSON.stringify({}) }).where('id', '=', loc0()).execute();
    }
  });

  test('a payment that cannot start leaves no order behind (platform-a active without its location)', async () => {
    await tdb().updateTable('locations').set({ payment_settings: JSON.stringify({ platform_a: { active: true } }) }).where('id', '=', loc0()).execute();
    try {
      const before = await txCount();
      const r = await pay({ lines: [line()] });
      expect(r).toMatchObject({ status: 422, body: { message: 'platform-a location is not configured for this location.', reason: 'platform_a_not_configured' } });
      expect(await txCount()).toBe(before);
    } finally {
      await tdb().updateTable('locations').set({ payment_settings: JSON.stringify({}) }).where('id', '=', loc0()).execute();
    }
  });

  test('platform-a integrated: a payment order, then payment/process with the card source', async () => {
    await tdb().updateTable('locations').set({ payment_settings: JSON.stringify({ platform_a: { active: true, location_id: 'PA-LOC-1' } }) }).where('id', '=', loc0()).execute();
    const r = await pay({ lines: [line()] });
    expect(r.status).toBe(200);
    const total = a.items[0]!.unit_price * 2;
    expect(r.body.data).toMatchObject({ provider: 'platform-a', payment: { success: true, amount: total, platform_location_id: 'PA-LOC-1' } });
    const id = r.body.data.transaction_id;
    const process = (source_id: string, body: Record<string, unknown> = {}) =>
      api.call('POST', '/api/online-ordering/payment/process', { body: { slug: a.merchant.slug, location_id: loc0(), transaction_id: id, source_id, ...body } });
    // A declined card is the customer's to fix (422 card_declined), not a provider outage; the order waits for another card.
    const declined = await process('cnon:card-nonce-declined');
    expect(declined).toMatchObject({ status: 422, body: { message: 'The card was declined. Try another card.', reason: 'card_declined' } });
    expect((await row(id)).status).toBe('Awaiting Payment');
    const done = await process('cnon:card-nonce-ok');
    expect(done.status).toBe(200);
    expect(done.body.data).toMatchObject({ transaction_id: id, status: 'Complete', total });
    expect((await row(id)).payment_snapshot).toMatchObject({ provider: 'platform-a', payment_id: expect.any(String) });
    // The declined card did not burn the order's key: the second card was its own attempt, charged once.
    expect(platformA.paymentsFor(id).map((p) => [p.status, p.amount_money.amount])).toEqual([['COMPLETED', total]]);
    // The same card sent again (a double submit) is answered from the order, not charged again.
    expect((await process('cnon:card-nonce-ok')).body.data).toMatchObject({ status: 'Complete' });
    expect(platformA.paymentsFor(id)).toHaveLength(1);
    // A card-a order is not processed here.
    await tdb().updateTable('locations').set({ payment_settings: JSON.stringify({}) }).where('id', '=', loc0()).execute();
    const other = await pay({ lines: [line()] });
    expect(
      await api.call('POST', '/api/online-ordering/payment/process', { body: { slug: a.merchant.slug, location_id: loc0(), transaction_id: other.body.data.transaction_id, source_id: 'cnon:card-nonce-ok' } }),
    ).toMatchObject({ status: 409, body: { message: 'This order is not paid through platform-a.' } });
  });
});

describe('platform-a attempts', () => {
  const activate = () => tdb().updateTable('locations').set({ payment_settings: JSON.stringify({ platform_a: { active: true, location_id: 'PA-LOC-1' } }) }).where('id', '=', loc0()).execute();
  const deactivate = () => tdb().updateTable('locations').set({ payment_settings: JSON.stringify({}) }).where('id', '=', loc0()).execute();
  const process = (id: string, source_id: string) =>
    api.call('POST', '/api/online-ordering/payment/process', { body: { slug: a.merchant.slug, location_id: loc0(), transaction_id: id, source_id } });

  test('two cards sent together for one order: one charge, both answers name the completed order', async () => {
    await activate();
    try {
      const id = (await pay({ lines: [line()] })).body.data.transaction_id as string;
      const answers = await Promise.all([process(id, 'cnon:card-nonce-ok'), process(id, 'cnon:card-nonce-ok-2'), process(id, 'cnon:card-nonce-ok-3')]);
      for (const r of answers) expect(r).toMatchObject({ status: 200, body: { data: { transaction_id: id, status: 'Complete' } } });
      expect(platformA.paymentsFor(id)).toHaveLength(1);
      expect((await row(id)).status).toBe('Complete');
    } finally {
      await deactivate();
    }
  });

  test('a card whose answer was lost is sent again before another card is charged: one payment, whatever the customer does next', async () => {
    // A real HTTP hop in front of the simulator: a payment reaches the provider and its answer is lost.
    let lose = true;
    let drop = false;
    const hop = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(req) {
        const url = new URL(req.url);
        if (drop && req.method === 'POST' && url.pathname === '/v2/payments') return new Response('bad gateway', { status: 502 });
        const res = await fetch(`${platformA.url}${url.pathname}${url.search}`, { method: req.method, headers: req.headers, body: req.method === 'GET' ? undefined : await req.arrayBuffer() });
        if (lose && req.method === 'POST' && url.pathname === '/v2/payments') return new Response('bad gateway', { status: 502 });
        return res;
      },
    });
    const lossy = await createTestApi({ env: { ...CREDS, CARD_A_BASE_URL: cardA.url, CARD_A_WEBHOOK_SECRET: SECRET, PLATFORM_A_BASE_URL: `http://127.0.0.1:${hop.port}` } });
    try {
      const mm = await lossy.seed('op-lost');
      const loc = mm.locations[0]!.id;
      await bindTenant(lossy.deps.db, mm.merchant.tenant_database).updateTable('locations').set({ payment_settings: JSON.stringify({ platform_a: { active: true, location_id: 'PA-LOC-1' } }) }).where('id', '=', loc).execute();
      const order = async () => (await lossy.call('POST', `/api/online-ordering/${mm.merchant.slug}/${loc}/payment`, { body: { lines: [{ item_id: mm.items[0]!.id, qty: 1 }] } })).body.data.transaction_id as string;
      const process = (id: string, source_id: string) => lossy.call('POST', '/api/online-ordering/payment/process', { body: { slug: mm.merchant.slug, location_id: loc, transaction_id: id, source_id } });

      // Card A is charged, its answer lost (503); the customer tries card B: A's payment is found, B is not charged.
      const paidTwice = await order();
      expect((await process(paidTwice, 'cnon:card-A')).body).toMatchObject({ reason: 'provider_error' });
      lose = false;
      expect((await process(paidTwice, 'cnon:card-B')).body.data).toMatchObject({ status: 'Complete' });
      expect(platformA.paymentsFor(paidTwice).map((p) => p.status)).toEqual(['COMPLETED']);

      // A declined card whose answer was lost: sent again, declined, then card B pays; one payment.
      lose = true;
      const declinedFirst = await order();
      expect((await process(declinedFirst, 'cnon:card-nonce-declined')).body).toMatchObject({ reason: 'provider_error' });
      lose = false;
      expect((await process(declinedFirst, 'cnon:card-B2')).body.data).toMatchObject({ status: 'Complete' });
      expect(platformA.paymentsFor(declinedFirst)).toHaveLength(1);

      // A lost answer and a storefront that only verifies: the verification finds the charge and captures it.
      lose = true;
      const verifiedOnly = await order();
      expect((await process(verifiedOnly, 'cnon:card-A3')).body).toMatchObject({ reason: 'provider_error' });
      lose = false;
      const verified = await lossy.call('POST', `/api/online-ordering/${mm.merchant.slug}/${loc}/verify-payment`, { body: { transaction_id: verifiedOnly } });
      expect(verified.body.data).toMatchObject({ transaction_id: verifiedOnly, status: 'Complete' });
      expect(platformA.paymentsFor(verifiedOnly).map((p) => p.status)).toEqual(['COMPLETED']);

      // An attempt that never reached the provider, of an order cancelled meanwhile: the verification does
      // not send it (no charge for a Cancelled order).
      drop = true;
      const cancelled = await order();
      expect((await process(cancelled, 'cnon:card-A4')).body).toMatchObject({ reason: 'provider_error' });
      await bindTenant(lossy.deps.db, mm.merchant.tenant_database).updateTable('transactions').set({ status: 'Cancelled' }).where('id', '=', cancelled).execute();
      drop = false;
      await lossy.call('POST', `/api/online-ordering/${mm.merchant.slug}/${loc}/verify-payment`, { body: { transaction_id: cancelled } });
      expect(platformA.paymentsFor(cancelled)).toEqual([]);
      expect((await bindTenant(lossy.deps.db, mm.merchant.tenant_database).selectFrom('transactions').select('status').where('id', '=', cancelled).executeTakeFirstOrThrow()).status).toBe('Cancelled');

      // A payment the provider later reports cancelled took no money: the order is Unpaid and takes another card.
      const again = await order();
      lose = true;
      expect((await process(again, 'cnon:card-A7')).body).toMatchObject({ reason: 'provider_error' });
      lose = false;
      platformA.setPaymentStatus(platformA.paymentsFor(again)[0]!.id, 'CANCELED');
      expect((await lossy.call('POST', `/api/online-ordering/${mm.merchant.slug}/${loc}/verify-payment`, { body: { transaction_id: again } })).body.data.status).toBe('Unpaid');
      expect((await process(again, 'cnon:card-A8')).body.data).toMatchObject({ status: 'Complete' });
      expect(platformA.paymentsFor(again).map((p) => p.status)).toEqual(['CANCELED', 'COMPLETED']);
    } finally {
      await lossy.close();
      hop.stop(true);
    }
  });

  test('a new card after the order\'s hold ran out and another checkout took the last unit: 422, nothing charged; once free, the card pays', async () => {
    const item = a.items[0]!;
    const bo = (body: unknown) => api.call('POST', '/api/back-office/inventories', { token: owner, body });
    expect((await bo({ item_id: item.id, location_id: loc0(), type: 'count', quantity: 1 })).status).toBe(201);
    await activate();
    try {
      const lines = [{ item_id: item.id, qty: 1 }];
      const id = (await pay({ lines })).body.data.transaction_id as string;
      expect((await process(id, 'cnon:card-nonce-declined')).status).toBe(422);
      // The hold runs out while the order waits for another card; another order takes the last unit (and
      // clears the expired hold on the way).
      const held = () => tdb().selectFrom('stock_reservations').select('qty').where('transaction_id', '=', id).execute();
      await tdb().updateTable('stock_reservations').set({ expires_at: new Date(Date.now() - 1000) }).where('transaction_id', '=', id).execute();
      const other = await pay({ lines });
      expect(other.status).toBe(200);
      expect(await held()).toEqual([]);
      // Before: 200 Complete, and both orders paid for one unit.
      expect(await process(id, 'cnon:card-nonce-ok')).toMatchObject({ status: 422, body: { reason: 'insufficient_stock' } });
      expect(platformA.paymentsFor(id)).toEqual([]);
      expect((await row(id)).status).toBe('Awaiting Payment');
      // The other order's hold runs out unpaid: the card pays, the order holding the unit until then.
      await tdb().updateTable('stock_reservations').set({ expires_at: new Date(Date.now() - 1000) }).where('transaction_id', '=', other.body.data.transaction_id).execute();
      expect((await process(id, 'cnon:card-nonce-ok')).body.data).toMatchObject({ transaction_id: id, status: 'Complete' });
      expect(platformA.paymentsFor(id).map((p) => p.status)).toEqual(['COMPLETED']);
    } finally {
      await deactivate();
      await tdb().deleteFrom('inventory_levels').where('item_id', '=', item.id).where('location_id', '=', loc0()).execute();
    }
  });

  test('a blank or over-long card source is a 422 naming the field; nothing reaches the provider', async () => {
    await activate();
    try {
      const id = (await pay({ lines: [line()] })).body.data.transaction_id as string;
      for (const source of ['', '   ', 'x'.repeat(256)]) {
        expect(await process(id, source)).toMatchObject({ status: 422, body: { errors: { source_id: ['The source id field is required and may not be greater than 255 characters.'] } } });
      }
      expect(platformA.paymentsFor(id)).toEqual([]);
    } finally {
      await deactivate();
    }
  });

  test('a cancelled order is not charged: 409, no payment at the provider', async () => {
    await activate();
    try {
      const id = (await pay({ lines: [line()] })).body.data.transaction_id as string;
      await tdb().updateTable('transactions').set({ status: 'Cancelled' }).where('id', '=', id).execute();
      expect(await process(id, 'cnon:card-nonce-ok')).toMatchObject({ status: 409, body: { reason: 'payment_cancelled' } });
      expect(platformA.paymentsFor(id)).toEqual([]);
      expect((await row(id)).status).toBe('Cancelled');
    } finally {
      await deactivate();
    }
  });
});

describe('refusals and isolation', () => {
  test('a snoozed location takes no order for now, an unoffered timeslot is refused; nothing written', async () => {
    const before = await txCount();
    await api.call('POST', `/api/back-office/online-ordering/${loc0()}/snooze`, { token: owner, body: { minutes: 30 } });
    expect(await pay({ lines: [line()] })).toMatchObject({ status: 422, body: { message: ORDERING_CLOSED, reason: 'ordering_closed' } });
    await api.call('POST', `/api/back-office/online-ordering/${loc0()}/snooze`, { token: owner, body: { minutes: 0 } });
    expect((await pay({ lines: [line()], scheduled_for: '2020-01-01T10:00:00.000Z' })).body.errors).toEqual({ scheduled_for: [TIMESLOT_UNAVAILABLE] });
    expect((await pay({ lines: [] })).status).toBe(422);
    expect((await pay({ lines: [line()], payment_method: 'cash' })).status).toBe(422);
    expect(await txCount()).toBe(before);
  });

  test('a dining option the location does not offer online is a 422 on dining_option; nothing written', async () => {
    const before = await txCount();
    // The defaults: pickup only.
    expect(await pay({ lines: [line()], dining_option: 'Delivery' })).toMatchObject({ status: 422, body: { errors: { dining_option: [DELIVERY_NOT_OFFERED] } } });
    await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { pickup: false, delivery: true } });
    try {
      expect(await pay({ lines: [line()], dining_option: 'Pickup' })).toMatchObject({ status: 422, body: { errors: { dining_option: [PICKUP_NOT_OFFERED] } } });
      // No option given is a pickup, refused alike.
      expect(await pay({ lines: [line()] })).toMatchObject({ status: 422, body: { errors: { dining_option: [PICKUP_NOT_OFFERED] } } });
      expect(await txCount()).toBe(before);
      const r = await pay({ lines: [line()], dining_option: 'Delivery', delivery_address: { line1: 'Grote Markt 1', city: 'Brussel', postal_code: '1000', country: 'BE' } });
      expect(r.status).toBe(200);
      expect((await row(r.body.data.transaction_id)).dining_option).toBe('Delivery');
    } finally {
      await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { pickup: true, delivery: false } });
    }
  });

  test('a Delivery order carries its delivery address (stored, shown on the register\'s channel orders); without one it is a 422, nothing stored', async () => {
    await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { delivery: true } });
    try {
      const before = await txCount();
      const required = { status: 422, body: { errors: { delivery_address: ['A delivery address is required for a Delivery order.'] } } };
      expect(await pay({ lines: [line()], dining_option: 'Delivery' })).toMatchObject(required);
      expect(await pay({ lines: [line()], dining_option: 'Delivery', delivery_address: { line1: '  ', city: 'Brussel', postal_code: '1000', country: 'BE' } })).toMatchObject(required);
      expect(await pay({ lines: [line()], dining_option: 'Pickup', delivery_address: { line1: 'Grote Markt 1', city: 'Brussel', postal_code: '1000', country: 'BE' } })).toMatchObject({
        status: 422,
        body: { errors: { delivery_address: ['A delivery address is only taken with a Delivery order.'] } },
      });
      expect((await pay({ lines: [line()], dining_option: 'Delivery', delivery_address: { line1: 'Grote Markt 1', city: 'Brussel', postal_code: '1000', country: 'Belgium' } })).status).toBe(422);
      expect((await pay({ lines: [line()], dining_option: 'Delivery', delivery_address: { line1: 'Grote Markt 1', city: 'Brussel', postal_code: '1000', country: 'BE', floor: 2 } })).status).toBe(422);
      expect(await txCount()).toBe(before);
      const r = await pay({ lines: [line()], dining_option: 'Delivery', delivery_address: { line1: ' Grote Markt 1 ', line2: '', city: 'Brussel', postal_code: '1000', country: 'be', instructions: 'Ring twice' } });
      expect(r.status).toBe(200);
      const stored = { line1: 'Grote Markt 1', city: 'Brussel', postal_code: '1000', country: 'BE', instructions: 'Ring twice' };
      expect((await row(r.body.data.transaction_id)).delivery_address).toEqual(stored);
      await cardA.confirmIntent(r.body.data.payment.id, r.body.data.payment.client_secret);
      await cardA.idle();
      await until(() => row(r.body.data.transaction_id), (x) => x.status === 'Complete');
      // The register's channel order (spec 2 `GET /pos/channel-orders/{id}`) shows where it goes.
      const { getChannelOrder } = await import('@pos/core/pos/channel-orders/channel-orders');
      expect(await getChannelOrder(tdb(), loc0(), r.body.data.transaction_id, new Date())).toMatchObject({ dining_option: 'Delivery', fulfillment: 'delivery', delivery_address: stored });
    } finally {
      await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { delivery: false } });
    }
  });

  test('an offered timeslot is accepted and stored as scheduled_for', async () => {
    // Tomorrow's slots in Brussels: late in the evening today has none left, so the test would depend on the hour.
    const tomorrow = new Date(Date.now() + 36 * 3600_000).toLocaleDateString('en-CA', { timeZone: 'Europe/Brussels' });
    const slots = await api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc0()}/available-timeslots`, { body: { date: tomorrow } });
    const slot = slots.body.data.slots.at(-1);
    const r = await pay({ lines: [line()], scheduled_for: slot.start });
    expect(r.status).toBe(200);
    expect((await row(r.body.data.transaction_id)).scheduled_for!.toISOString()).toBe(slot.start);
  });

  test('a paid scheduled order takes the capacity of the slot it was scheduled for, not of the slot it was paid in', async () => {
    await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { slot_capacity: 1 } });
    try {
      const tomorrow = new Date(Date.now() + 36 * 3600_000).toLocaleDateString('en-CA', { timeZone: 'Europe/Brussels' });
      const slotsOf = async () => (await api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc0()}/available-timeslots`, { body: { date: tomorrow } })).body.data.slots as { start: string }[];
      const slot = (await slotsOf()).at(-2)!;
      const r = await pay({ lines: [line()], scheduled_for: slot.start });
      await cardA.confirmIntent(r.body.data.payment.id, r.body.data.payment.client_secret);
      await cardA.idle();
      const done = await until(() => row(r.body.data.transaction_id), (x) => x.status === 'Complete');
      expect(done.capacity_slot_at!.toISOString()).toBe(slot.start);
      expect((await slotsOf()).map((s) => s.start)).not.toContain(slot.start);
      expect((await pay({ lines: [line()], scheduled_for: slot.start })).body.errors).toEqual({ scheduled_for: [TIMESLOT_UNAVAILABLE] });
    } finally {
      await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { slot_capacity: 0 } });
    }
  });

  test("another merchant's slug, location or transaction is a 404", async () => {
    const r = await pay({ lines: [line()] });
    const id = r.body.data.transaction_id;
    expect(await pay({ lines: [line()] }, loc0(), b.merchant.slug)).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
    expect(await verify(id, loc0(), b.merchant.slug)).toMatchObject({ status: 404 });
    expect(await verify(id, b.locations[0]!.id, b.merchant.slug)).toMatchObject({ status: 404, body: { message: 'Unable to locate the transaction you requested.' } });
    expect(await verify('not-a-uuid')).toMatchObject({ status: 404, body: { message: 'Unable to locate the transaction you requested.' } });
  });
});

describe('table QR orders (spec 3 "verify (online) ... bound to table session")', () => {
  async function session(locationId: string, status: 'open' | 'closed', table: number) {
    const now = new Date();
    const sectionId = Bun.randomUUIDv7();
    await tdb().insertInto('table_sections').values({ id: sectionId, location_id: locationId, name: `S-${sectionId.slice(-6)}`, tables: 10 }).execute();
    const id = Bun.randomUUIDv7();
    await tdb().insertInto('table_sessions').values({ id, location_id: locationId, table_section_id: sectionId, table_number: table, status, opened_at: now, ...(status === 'closed' ? { closed_at: now } : {}) } as never).execute();
    return id;
  }

  test('the paid order is bound to its open table session; the snapshot names it with channel table_qr', async () => {
    const sid = await session(loc0(), 'open', 3);
    const r = await pay({ lines: [line()], table_session_id: sid });
    expect(r.status).toBe(200);
    const id = r.body.data.transaction_id;
    expect((await row(id)).payment_snapshot).toMatchObject({ channel: 'table_qr', table_session_id: sid });
    await cardA.confirmIntent(r.body.data.payment.id, r.body.data.payment.client_secret);
    await cardA.idle();
    const done = await until(() => row(id), (x) => x.status === 'Complete');
    expect(done.status).toBe('Complete');
    expect(done.table_session_id).toBe(sid);
  });

  test('an unknown, another location\'s or closed session is refused and nothing is written', async () => {
    const before = await txCount();
    const other = a.locations[1] ? await session(a.locations[1].id, 'open', 4) : Bun.randomUUIDv7();
    expect((await pay({ lines: [line()], table_session_id: Bun.randomUUIDv7() })).status).toBe(404);
    expect((await pay({ lines: [line()], table_session_id: other })).status).toBe(404);
    const closed = await session(loc0(), 'closed', 5);
    const c = await pay({ lines: [line()], table_session_id: closed });
    expect(c.status).toBe(422);
    expect(c.body.message).toBe('The table session is closed.');
    expect((await pay({ lines: [line()], table_session_id: 'nope' })).status).toBe(422);
    expect(await txCount()).toBe(before);
  });
});

describe('auth.optional on the online payment', () => {
  test('a customer token puts its customer on the order; a guest order has none; a bad token is 401; another merchant\'s customer 404', async () => {
    const { makeCustomer } = await import('../customer-account/customer-test-support.ts');
    const c = await makeCustomer(api, a);
    const r = await api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc0()}/payment`, { body: { lines: [line()] }, token: c.token });
    expect(r.status).toBe(200);
    expect((await row(r.body.data.transaction_id)).customer_id).toBe(c.id);
    const g = await pay({ lines: [line()] });
    expect((await row(g.body.data.transaction_id)).customer_id).toBeNull();
    const before = await txCount();
    expect((await api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc0()}/payment`, { body: { lines: [line()] }, token: 'not-a-token' })).status).toBe(401);
    const other = await makeCustomer(api, b);
    expect((await api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc0()}/payment`, { body: { lines: [line()] }, token: other.token })).status).toBe(404);
    expect(await txCount()).toBe(before);
  });
});

describe('online payment: dates, slot capacity, verification', () => {
  // Spec 1 section 7: 422 for invalid input; 500 only for an unhandled exception.
  test('a scheduled_for at the ends of the date range is no slot: 422 on scheduled_for, nothing stored', async () => {
    const before = await tdb().selectFrom('transactions').select((e) => e.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    for (const v of ['+275760-09-13T00:00:00Z', '+275760-09-12T23:59:59Z', '2100-01-01T12:00:00Z']) {
      expect(await pay({ lines: [line()], scheduled_for: v })).toMatchObject({ status: 422, body: { errors: { scheduled_for: ['The chosen timeslot is not available.'] } } });
    }
    // A year before 0000 is no date and time the platform takes at all (PostgreSQL could not store it).
    expect(await pay({ lines: [line()], scheduled_for: '-271821-04-20T00:00:00Z' })).toMatchObject({ status: 422, body: { errors: { scheduled_for: ['The scheduled for field must be a date-time.'] } } });
    expect(await tdb().selectFrom('transactions').select((e) => e.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).toEqual(before);
  });

  test('slot capacity 1: an order being paid holds the slot; a second one for it, or two at once, gets one place', async () => {
    await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { slot_capacity: 1 } });
    const timeslots = async (date: string) => (await api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc0()}/available-timeslots`, { body: { date } })).body.data.slots as { start: string; remaining: number }[];
    const full = { status: 422, body: { errors: { scheduled_for: ['The chosen timeslot is not available.'] } } };
    try {
      const tomorrow = new Date(Date.now() + 36 * 3600_000).toLocaleDateString('en-CA', { timeZone: 'Europe/Brussels' });
      const slots = await timeslots(tomorrow);
      const slot = slots.at(-3)!;
      expect(slot.remaining).toBe(1);
      const r1 = await pay({ lines: [line()], scheduled_for: slot.start });
      expect(r1.status).toBe(200);
      // Held while it is paid: the slot is full for the next customer.
      expect((await timeslots(tomorrow)).find((x) => x.start === slot.start)).toBeUndefined();
      expect(await pay({ lines: [line()], scheduled_for: slot.start })).toMatchObject(full);
      await cardA.confirmIntent(r1.body.data.payment.id, r1.body.data.payment.client_secret);
      await cardA.idle();
      const d1 = await until(() => row(r1.body.data.transaction_id), (x) => x.status === 'Complete');
      expect(d1.capacity_slot_at?.toISOString()).toBe(slot.start);
      expect(await pay({ lines: [line()], scheduled_for: slot.start })).toMatchObject(full);

      // Two customers at once for another slot's last place: one gets it.
      const other = slots.at(-4)!;
      const both = await Promise.all([pay({ lines: [line()], scheduled_for: other.start }), pay({ lines: [line()], scheduled_for: other.start })]);
      expect(both.map((r) => r.status).sort()).toEqual([200, 422]);
      expect(both.find((r) => r.status === 422)).toMatchObject(full);
    } finally {
      await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { slot_capacity: 0 } });
    }
  });

  test('a declined first card (Unpaid, "may still succeed") keeps holding the slot: the last place is never sold twice', async () => {
    await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { slot_capacity: 1 } });
    const timeslots = async (date: string) => (await api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc0()}/available-timeslots`, { body: { date } })).body.data.slots as { start: string; remaining: number }[];
    try {
      const tomorrow = new Date(Date.now() + 36 * 3600_000).toLocaleDateString('en-CA', { timeZone: 'Europe/Brussels' });
      const slot = (await timeslots(tomorrow)).at(-5)!;
      expect(slot.remaining).toBe(1);
      const r1 = await pay({ lines: [line()], scheduled_for: slot.start });
      expect(r1.status).toBe(200);
      // The first card is declined: the intent waits for another card (spec 3: Unpaid "may still succeed").
      await cardA.declineIntent(r1.body.data.payment.id, r1.body.data.payment.client_secret);
      await cardA.idle();
      expect((await until(() => row(r1.body.data.transaction_id), (x) => x.status !== 'Awaiting Payment', 3000)).status).toBe('Unpaid');
      expect((await timeslots(tomorrow)).find((x) => x.start === slot.start)).toBeUndefined();
      const before = await txCount();
      expect(await pay({ lines: [line()], scheduled_for: slot.start })).toMatchObject({ status: 422, body: { errors: { scheduled_for: [TIMESLOT_UNAVAILABLE] } } });
      expect(await txCount()).toBe(before);
      // A second card on the same intent pays: the order completes in its slot, the only one there.
      await cardA.confirmIntent(r1.body.data.payment.id, r1.body.data.payment.client_secret);
      await cardA.idle();
      expect((await until(() => row(r1.body.data.transaction_id), (x) => x.status === 'Complete')).capacity_slot_at?.toISOString()).toBe(slot.start);
      expect(Number((await tdb().selectFrom('transactions').select((e) => e.fn.countAll<string>().as('n')).where('capacity_slot_at', '=', new Date(slot.start)).executeTakeFirstOrThrow()).n)).toBe(1);
    } finally {
      await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { slot_capacity: 0 } });
    }
  });

  test('five concurrent verifies of a paid intent (webhook lost) capture once: one receipt number for all answers, no 5xx', async () => {
    const r = await pay({ lines: [line()] });
    const id = r.body.data.transaction_id;
    (cardA.intent(r.body.data.payment.id)! as { status: string }).status = 'succeeded';
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => verify(id)));
    const done = await until(() => row(id), (x) => x.status === 'Complete');
    expect(done.status).toBe('Complete');
    expect(answers.map((x) => [x.status, x.body.data.status, x.body.data.receipt_no])).toEqual(answers.map(() => [200, 'Complete', done.receipt_no]));
  });

  test('a paid order is verified (and captured) after the location stopped taking online orders', async () => {
    const r = await pay({ lines: [line()] });
    const id = r.body.data.transaction_id;
    (cardA.intent(r.body.data.payment.id)! as { status: string }).status = 'succeeded';
    await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { enabled: false } });
    try {
      const v = await verify(id);
      expect(v.status).toBe(200);
      expect(v.body.data.status).toBe('Complete');
    } finally {
      await api.call('PUT', `/api/back-office/online-ordering/${loc0()}`, { token: owner, body: { enabled: true } });
    }
  });
});
