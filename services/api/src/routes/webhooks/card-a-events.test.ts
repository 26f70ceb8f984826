import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import { startCardASimulator, startCardBSimulator, type CardASimulator, type CardBSimulator } from '@pos/providers/payments';
import { failedInvoiceKey } from '@pos/core/webhooks/card-a-invoices';
import { locationChannel } from '@pos/core/webhooks/card-a-subscriptions';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

// card-a events beyond payments (spec 3 "Card-a events", issue 13 item 4): the card-a simulator sends
// its own signed events to the running API over a socket; tests also re-send signed copies to race them.
let sim: CardASimulator;
let cardB: CardBSimulator;
let api: TestApi;
let server: { stop(): unknown };
const SECRET = 'whsec_events_0123456789';
const CREDS = { CARD_A_SECRET_KEY: 'sk_test_caevents', CARD_B_CLIENT_ID: 'caevents', CARD_B_CLIENT_SECRET: 'caevents-secret' };

beforeAll(async () => {
  sim = startCardASimulator({ secretKey: CREDS.CARD_A_SECRET_KEY, webhookSecret: SECRET });
  // card-b too: a kiosk whose location's payment profile does not report card-a pays on it.
  cardB = startCardBSimulator({ clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET });
  api = await createTestApi({ env: { ...CREDS, CARD_A_BASE_URL: sim.url, CARD_A_WEBHOOK_SECRET: SECRET, CARD_B_BASE_URL: cardB.url } });
  // The API listens on a port the system picks (a port probed and released first could be taken meanwhile: EADDRINUSE in CI); the simulator is told it after.
  server = api.app.listen({ port: 0, hostname: '127.0.0.1' });
  sim.setWebhookUrl(`http://127.0.0.1:${api.app.server!.port}/api/card-a-webhook/BE`);
});
afterAll(async () => {
  await sim.idle();
  await server.stop();
  await api.close();
  await sim.stop();
  await cardB.stop();
});

const now = () => Math.floor(Date.now() / 1000);
const tdbOf = (m: DemoSeedResult) => bindTenant(api.deps.db, m.merchant.tenant_database);
const cardA = () => api.deps.payments.cardA!;
const sign = (raw: string, t = now()) => `t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.${raw}`).digest('hex')}`;
/** A signed copy of an event the simulator sent, under a new event id (another delivery of the same fact). */
function copyOf(event: any): string {
  return JSON.stringify({ ...event, id: `evt_${crypto.randomUUID().replaceAll('-', '')}` });
}
const post = (raw: string) => api.call('POST', '/api/card-a-webhook/BE', { rawBody: raw, headers: { 'card-a-signature': sign(raw) } });
const simPost = async (path: string, body: unknown = {}) => {
  const r = await fetch(`${sim.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as any };
};
const logsOf = (type: string, merchantId?: string) => {
  let q = api.deps.db.selectFrom('webhook_logs').selectAll().where('provider', '=', 'card-a').where('event_type', '=', type);
  if (merchantId) q = q.where('merchant_id', '=', merchantId);
  return q.orderBy('created_at').execute();
};
const PP = '/api/back-office/settings/payment-profiles';
/**
 * A payment profile whose card-a account finished onboarding, through the API: the profile, its
 * onboarding link (which creates the account), the merchant onboarding at the simulator, whose signed
 * `account.updated` reaches the API. The merchant's first profile is its default.
 */
async function cardAProfile(m: DemoSeedResult, name = 'Card-a payments'): Promise<{ id: string; account: string }> {
  const owner = await api.ownerToken(m);
  const created = await api.call('POST', PP, { token: owner, body: { name } });
  expect(created.status).toBe(201);
  const link = await api.call('POST', `${PP}/${created.body.data.id}/card-a/url`, { token: owner, body: {} });
  expect(link.status).toBe(200);
  expect((await simPost(`/_sim/accounts/${link.body.data.account_id}/complete-onboarding`)).status).toBe(200);
  await sim.idle();
  return { id: created.body.data.id, account: link.body.data.account_id };
}
const record = (m: DemoSeedResult, subId: string) => tdbOf(m).selectFrom('billing_subscriptions').selectAll().where('provider_subscription_id', '=', subId).executeTakeFirst();
const deviceUntil = async (m: DemoSeedResult, id: string) => (await tdbOf(m).selectFrom('devices').select('subscription_active_until').where('id', '=', id).executeTakeFirstOrThrow()).subscription_active_until;

/** A subscription at the merchant's first location, known locally (the simulator's `created` event delivered). */
async function subscribed(m: DemoSeedResult, opts: { sepa?: boolean } = {}) {
  const customer = `cus_${crypto.randomUUID().replaceAll('-', '').slice(0, 14)}`;
  const s = await cardA().createSubscription({ customer, price: 'price_kiosk_monthly', paymentMethod: null, metadata: { location_id: m.locations[0]!.id }, idempotencyKey: crypto.randomUUID() });
  await sim.idle();
  let sepa: { payment_method: string; mandate: string } | null = null;
  if (opts.sepa) sepa = (await simPost(`/_sim/customers/${customer}/sepa`)).body;
  return { s, customer, sepa };
}

/** Collects the real-time location updates published for a tenant. */
async function locationEvents(m: DemoSeedResult) {
  const sub = api.deps.redis.duplicate();
  const seen: any[] = [];
  sub.on('message', (_c: string, msg: string) => seen.push(JSON.parse(msg)));
  await sub.subscribe(locationChannel(m.merchant.tenant_database));
  return { seen, close: () => sub.quit() };
}

describe('subscription events synchronise local records and devices', () => {
  test('created: the record is written, the location\'s kiosk and kds follow it, a location update is pushed', async () => {
    const m = await api.seed('casub');
    const rt = await locationEvents(m);
    try {
      const { s } = await subscribed(m);
      const r = await record(m, s.id);
      expect(r).toMatchObject({ customer_id: s.customer, location_id: m.locations[0]!.id, status: 'active', price_id: 'price_kiosk_monthly', device_ids: null, mandate_id: null });
      expect(r!.current_period_end!.getTime()).toBe(s.current_period_end * 1000);
      for (const d of [m.kiosk.device_id, m.kds.device_id]) expect((await deviceUntil(m, d))!.getTime()).toBe(s.current_period_end * 1000);
      // The POS devices are not subscription devices.
      const pos = m.devices.find((d) => d.type === 'pos')!;
      expect(await deviceUntil(m, pos.id)).toBeNull();
      await Bun.sleep(50);
      expect(rt.seen).toContainEqual(expect.objectContaining({ type: 'location.updated', reason: 'subscription', location_id: m.locations[0]!.id, subscription_id: s.id, status: 'active' }));
      expect((await logsOf('customer.subscription.created', m.merchant.id))[0]).toMatchObject({ status: 'processed' });
    } finally {
      await rt.close();
    }
  });

  test('updated moves the period; an older event arriving late changes nothing; deleted ends the kiosk (402 at once)', async () => {
    const m = await api.seed('caupd');
    const kiosk = await api.deviceToken(m, 'kiosk');
    const { s } = await subscribed(m);
    const later = now() + 60 * 24 * 3600;
    const updated = await simPost(`/_sim/subscriptions/${s.id}/update`, { current_period_end: later });
    expect(updated.status).toBe(200);
    expect((await record(m, s.id))!.current_period_end!.getTime()).toBe(later * 1000);
    expect((await deviceUntil(m, m.kiosk.device_id))!.getTime()).toBe(later * 1000);

    // An event created before the one applied (delivered out of order) is stored as ignored.
    const old = sim.webhooks.find((w: any) => w.body.type === 'customer.subscription.created' && w.body.data.object.id === s.id)!.body as any;
    const stale = JSON.stringify({ ...old, id: `evt_stale_${crypto.randomUUID().slice(0, 8)}`, created: old.created - 10, data: { object: { ...old.data.object, current_period_end: now() + 5 } } });
    expect((await post(stale)).status).toBe(200);
    expect((await record(m, s.id))!.current_period_end!.getTime()).toBe(later * 1000);
    expect((await logsOf('customer.subscription.created', m.merchant.id)).map((l) => l.status)).toEqual(['processed', 'ignored']);

    // The kiosk works while subscribed ...
    const before = await api.call('GET', '/api/kiosk/payment/session-status?idempotency_key=idemp_x_1', { token: kiosk, deviceKey: true });
    expect(before.status).not.toBe(402);
    // ... and the deletion ends it; the cached device state is dropped, so the next request is 402.
    const del = await fetch(`${sim.url}/v1/subscriptions/${s.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${CREDS.CARD_A_SECRET_KEY}` } });
    expect(del.status).toBe(200);
    await sim.idle();
    expect(await record(m, s.id)).toMatchObject({ status: 'canceled', cancel_reason: 'cancellation_requested', recovered_by: null });
    expect((await deviceUntil(m, m.kiosk.device_id))!.getTime()).toBeLessThanOrEqual(Date.now());
    expect((await api.call('GET', '/api/kiosk/payment/session-status?idempotency_key=idemp_x_1', { token: kiosk, deviceKey: true })).status).toBe(402);
    // A cancelled subscription is never revived by a later update event.
    const revive = JSON.stringify({ ...old, id: `evt_revive_${crypto.randomUUID().slice(0, 8)}`, type: 'customer.subscription.updated', created: now() + 100, data: { object: { ...old.data.object, status: 'active' } } });
    expect((await post(revive)).status).toBe(200);
    expect((await record(m, s.id))!.status).toBe('canceled');
  });

  test('paused ends the devices it covers (metadata device_ids: the kiosk only), resumed brings them back', async () => {
    const m = await api.seed('capause');
    const customer = `cus_${crypto.randomUUID().replaceAll('-', '').slice(0, 14)}`;
    const kdsBefore = await deviceUntil(m, m.kds.device_id);
    const s = await cardA().createSubscription({ customer, price: 'price_kiosk', paymentMethod: null, metadata: { location_id: m.locations[0]!.id, device_ids: m.kiosk.device_id }, idempotencyKey: crypto.randomUUID() });
    await sim.idle();
    expect((await record(m, s.id))!.device_ids).toEqual([m.kiosk.device_id]);
    expect((await deviceUntil(m, m.kiosk.device_id))!.getTime()).toBe(s.current_period_end * 1000);
    expect(await deviceUntil(m, m.kds.device_id)).toEqual(kdsBefore);
    await simPost(`/_sim/subscriptions/${s.id}/update`, { status: 'paused' });
    expect((await record(m, s.id))!.status).toBe('paused');
    expect((await deviceUntil(m, m.kiosk.device_id))!.getTime()).toBeLessThanOrEqual(Date.now());
    await simPost(`/_sim/subscriptions/${s.id}/update`, { status: 'active' });
    expect((await record(m, s.id))!.status).toBe('active');
    expect((await deviceUntil(m, m.kiosk.device_id))!.getTime()).toBe(s.current_period_end * 1000);
    expect(await deviceUntil(m, m.kds.device_id)).toEqual(kdsBefore);
    expect((await logsOf('customer.subscription.paused', m.merchant.id)).map((l) => l.status)).toEqual(['processed']);
    expect((await logsOf('customer.subscription.resumed', m.merchant.id)).map((l) => l.status)).toEqual(['processed']);
  });

  test('a device a subscription names follows it after a move to another location (renewed there, ended there)', async () => {
    const m = await api.seed('camove');
    const owner = await api.ownerToken(m);
    const customer = `cus_${crypto.randomUUID().replaceAll('-', '').slice(0, 14)}`;
    const s = await cardA().createSubscription({ customer, price: 'price_kiosk', paymentMethod: null, metadata: { location_id: m.locations[0]!.id, device_ids: m.kiosk.device_id }, idempotencyKey: crypto.randomUUID() });
    await sim.idle();
    expect((await deviceUntil(m, m.kiosk.device_id))!.getTime()).toBe(s.current_period_end * 1000);
    // Moved to the second location: still the device the subscription bills for.
    const moved = await api.call('PUT', `/api/back-office/devices/${m.kiosk.device_id}`, { token: owner, body: { location_id: m.locations[1]!.id } });
    expect(moved.status).toBe(200);
    const later = now() + 60 * 24 * 3600;
    expect((await simPost(`/_sim/subscriptions/${s.id}/update`, { current_period_end: later })).status).toBe(200);
    expect((await deviceUntil(m, m.kiosk.device_id))!.getTime()).toBe(later * 1000);
    // Paused: the moved device ends too.
    await simPost(`/_sim/subscriptions/${s.id}/update`, { status: 'paused' });
    expect((await deviceUntil(m, m.kiosk.device_id))!.getTime()).toBeLessThanOrEqual(Date.now());
  });

  test('two events of one second delivered newest first: the record keeps card-a\'s current state, the kiosk keeps working', async () => {
    const m = await api.seed('casame');
    const kiosk = await api.deviceToken(m, 'kiosk');
    const { s } = await subscribed(m);
    const created = sim.webhooks.find((w: any) => w.body.type === 'customer.subscription.created' && w.body.data.object.id === s.id)!.body as any;
    const t = now() + 30;
    const later = now() + 30 * 24 * 3600;
    expect((await simPost(`/_sim/subscriptions/${s.id}/update`, { current_period_end: later })).status).toBe(200);
    // The same second: the update (active) arrives first, then the creation (incomplete, the older state).
    const update = JSON.stringify({ ...created, id: `evt_upd_${crypto.randomUUID().slice(0, 8)}`, type: 'customer.subscription.updated', created: t, data: { object: { ...created.data.object, status: 'active', current_period_end: later } } });
    const first = JSON.stringify({ ...created, id: `evt_new_${crypto.randomUUID().slice(0, 8)}`, created: t, data: { object: { ...created.data.object, status: 'incomplete' } } });
    expect((await post(update)).status).toBe(200);
    expect((await post(first)).status).toBe(200);
    // Before: status incomplete, the kiosk ended (402) although card-a serves and bills the subscription.
    expect(await record(m, s.id)).toMatchObject({ status: 'active' });
    expect((await deviceUntil(m, m.kiosk.device_id))!.getTime()).toBe(later * 1000);
    expect((await api.call('GET', '/api/kiosk/payment/session-status?idempotency_key=idemp_x_1', { token: kiosk, deviceKey: true })).status).not.toBe(402);
  });

  test('a device covered by two locations\' subscriptions: ending one leaves it the other\'s period', async () => {
    const m = await api.seed('catwo');
    const owner = await api.ownerToken(m);
    const customer = `cus_${crypto.randomUUID().replaceAll('-', '').slice(0, 14)}`;
    const a = await cardA().createSubscription({ customer, price: 'price_kiosk', paymentMethod: null, metadata: { location_id: m.locations[0]!.id, device_ids: m.kiosk.device_id }, idempotencyKey: crypto.randomUUID() });
    await sim.idle();
    expect((await api.call('PUT', `/api/back-office/devices/${m.kiosk.device_id}`, { token: owner, body: { location_id: m.locations[1]!.id } })).status).toBe(200);
    const b = await cardA().createSubscription({ customer, price: 'price_kiosk', paymentMethod: null, metadata: { location_id: m.locations[1]!.id }, idempotencyKey: crypto.randomUUID() });
    await sim.idle();
    const later = now() + 40 * 24 * 3600;
    expect((await simPost(`/_sim/subscriptions/${b.id}/update`, { current_period_end: later })).status).toBe(200);
    expect((await deviceUntil(m, m.kiosk.device_id))!.getTime()).toBe(later * 1000);
    // The first location's subscription ends: the kiosk is still covered where it stands now.
    const del = await fetch(`${sim.url}/v1/subscriptions/${a.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${CREDS.CARD_A_SECRET_KEY}` } });
    expect(del.status).toBe(200);
    await sim.idle();
    expect(await record(m, a.id)).toMatchObject({ status: 'canceled' });
    // Before: set to now (402), the other location's serving record ignored.
    expect((await deviceUntil(m, m.kiosk.device_id))!.getTime()).toBe(later * 1000);
  });

  test('a subscription naming no known location resolves no tenant: stored as location_not_resolved', async () => {
    const customer = `cus_${crypto.randomUUID().replaceAll('-', '').slice(0, 14)}`;
    const s = await cardA().createSubscription({ customer, price: 'price_x', paymentMethod: null, metadata: { location_id: crypto.randomUUID() }, idempotencyKey: crypto.randomUUID() });
    await sim.idle();
    const log = (await logsOf('customer.subscription.created')).find((l) => (l.payload as any).data.object.id === s.id);
    expect(log).toMatchObject({ status: 'location_not_resolved', merchant_id: null });
  });
});

describe('invoice.payment_failed and the SEPA recovery', () => {
  test('setup_intent.succeeded keeps the mandate; a failed invoice is cached 10 minutes and paid at once with the mandate', async () => {
    const m = await api.seed('cainv');
    const { s, sepa } = await subscribed(m, { sepa: true });
    expect(await record(m, s.id)).toMatchObject({ payment_method_id: sepa!.payment_method, mandate_id: sepa!.mandate });
    const invoice = (await simPost(`/_sim/subscriptions/${s.id}/invoice-failed`, { amount: 4900 })).body;
    await sim.idle();
    // The retry used the mandate and the provider collected the invoice; nothing is left to recover.
    expect(sim.billing.mandateRetries.filter((r) => r.invoice === invoice.id)).toEqual([{ invoice: invoice.id, mandate: sepa!.mandate, ok: true }]);
    expect(sim.billing.invoice(invoice.id)!.status).toBe('paid');
    expect(await api.deps.redis.get(failedInvoiceKey(s.id))).toBeNull();
    expect((await logsOf('invoice.payment_failed', m.merchant.id)).map((l) => l.status)).toEqual(['processed']);
    expect((await record(m, s.id))!.status).toBe('active');
  });

  test('a mandate set up before the subscription is known is stored as failed, then replayed from the back office', async () => {
    const m = await api.seed('camandate');
    const customer = `cus_${crypto.randomUUID().replaceAll('-', '').slice(0, 14)}`;
    const sepa = (await simPost(`/_sim/customers/${customer}/sepa`, { metadata: { location_id: m.locations[0]!.id } })).body;
    const [log] = await logsOf('setup_intent.succeeded', m.merchant.id);
    expect(log).toMatchObject({ status: 'failed', error: 'no_subscription_for_customer' });
    const s = await cardA().createSubscription({ customer, price: 'price_kiosk_monthly', paymentMethod: sepa.payment_method, metadata: { location_id: m.locations[0]!.id }, idempotencyKey: crypto.randomUUID() });
    await sim.idle();
    expect(await record(m, s.id)).toMatchObject({ payment_method_id: sepa.payment_method, mandate_id: null });
    const owner = await api.ownerToken(m);
    const replay = await api.call('POST', `/api/back-office/webhook-logs/${log!.id}/replay`, { token: owner });
    expect(replay.status).toBe(200);
    expect((await logsOf('setup_intent.succeeded', m.merchant.id))[0]).toMatchObject({ id: log!.id, status: 'processed', error: null });
    expect(await record(m, s.id)).toMatchObject({ payment_method_id: sepa.payment_method, mandate_id: sepa.mandate });
  });

  test('a retry that fails leaves the failure cached (TTL 10 minutes) and is not retried again by its own failure event', async () => {
    const m = await api.seed('cainv2');
    const { s, sepa } = await subscribed(m, { sepa: true });
    await simPost(`/_sim/mandates/${sepa!.mandate}/decline`);
    const invoice = (await simPost(`/_sim/subscriptions/${s.id}/invoice-failed`)).body;
    await sim.idle();
    expect(sim.billing.mandateRetries.filter((r) => r.invoice === invoice.id)).toEqual([{ invoice: invoice.id, mandate: sepa!.mandate, ok: false }]);
    const cached = JSON.parse((await api.deps.redis.get(failedInvoiceKey(s.id)))!);
    expect(cached).toMatchObject({ invoice_id: invoice.id, customer: s.customer, amount_due: 4900 });
    const ttl = await api.deps.redis.ttl(failedInvoiceKey(s.id));
    expect(ttl).toBeGreaterThan(590);
    expect(ttl).toBeLessThanOrEqual(600);
    // The provider's second failure event (of the retry) is stored and processed without another retry.
    expect((await logsOf('invoice.payment_failed', m.merchant.id)).map((l) => l.status)).toEqual(['processed', 'processed']);
  });

  test('the race: invoice.payment_failed and customer.subscription.deleted at the same moment recover the subscription exactly once', async () => {
    const m = await api.seed('carace');
    for (let round = 0; round < 5; round++) {
      const { s, customer, sepa } = await subscribed(m, { sepa: true });
      await simPost(`/_sim/mandates/${sepa!.mandate}/decline`);
      const from = sim.webhooks.length;
      // The provider cancels for the failed payment and sends both events concurrently.
      expect((await simPost(`/_sim/subscriptions/${s.id}/invoice-failed`, { cancel: true })).status).toBe(200);
      // More deliveries of the same two facts (provider retries) race them further.
      const bodies = sim.webhooks.slice(from).map((w) => w.body as any);
      // (A retry that ran before the deletion was handled fails, and its own failure event follows.)
      const sent = ['invoice.payment_failed', 'customer.subscription.deleted'].map((type) => bodies.find((b) => b.type === type)!);
      expect(sent.map((b) => b?.data.object.id)).toEqual([expect.stringMatching(/^in_/), s.id]);
      const copies = sent.flatMap((b) => [copyOf(b), copyOf(b), copyOf(b)]);
      const answers = await Promise.all(copies.map((raw) => post(raw)));
      expect(answers.every((a) => a.status === 200)).toBe(true);
      await sim.idle();

      const subs = sim.billing.subscriptionsOf(customer);
      expect(subs.length).toBe(2);
      const fresh = subs.find((x) => x.id !== s.id)!;
      expect(fresh).toMatchObject({ status: 'active', default_payment_method: sepa!.payment_method, metadata: { location_id: m.locations[0]!.id, recovered_from: s.id } });
      expect(await record(m, s.id)).toMatchObject({ status: 'canceled', cancel_reason: 'payment_failed', recovered_by: fresh.id });
      expect(await record(m, fresh.id)).toMatchObject({ status: 'active', mandate_id: sepa!.mandate, payment_method_id: sepa!.payment_method });
      expect(await api.deps.redis.get(failedInvoiceKey(s.id))).toBeNull();
      expect((await deviceUntil(m, m.kiosk.device_id))!.getTime()).toBeGreaterThanOrEqual(fresh.current_period_end * 1000);
    }
    const records = await tdbOf(m).selectFrom('billing_subscriptions').select(['status', 'recovered_by']).execute();
    expect(records.filter((r) => r.status === 'canceled').length).toBe(5);
    expect(records.filter((r) => r.status === 'active').length).toBe(5);
  });

  test('a recovered device subscription keeps its units: one per device, as it was bought', async () => {
    const m = await api.seed('caunits');
    const customer = `cus_${crypto.randomUUID().replaceAll('-', '').slice(0, 14)}`;
    const devices = m.devices.filter((d) => d.type !== 'pos').slice(0, 2).map((d) => d.id);
    expect(devices.length).toBe(2);
    const s = await cardA().createSubscription({ customer, price: 'price_kiosk_monthly', paymentMethod: null, quantity: 2, metadata: { location_id: m.locations[0]!.id, device_ids: devices.join(',') }, idempotencyKey: crypto.randomUUID() });
    await sim.idle();
    const sepa = (await simPost(`/_sim/customers/${customer}/sepa`)).body;
    await sim.idle();
    await simPost(`/_sim/mandates/${sepa.mandate}/decline`);
    await simPost(`/_sim/subscriptions/${s.id}/invoice-failed`, { cancel: true });
    await sim.idle();
    const fresh = sim.billing.subscriptionsOf(customer).find((x) => x.id !== s.id)!;
    expect(fresh.metadata).toMatchObject({ recovered_from: s.id, device_ids: devices.join(',') });
    // Before: created without a quantity, one unit went on serving both devices.
    expect(fresh.items.data[0]!.quantity).toBe(2);
  });

  test('a deletion the customer asked for is not recovered, even with a failure cached', async () => {
    const m = await api.seed('canorec');
    const { s, customer, sepa } = await subscribed(m, { sepa: true });
    await simPost(`/_sim/mandates/${sepa!.mandate}/decline`);
    await simPost(`/_sim/subscriptions/${s.id}/invoice-failed`);
    await sim.idle();
    await fetch(`${sim.url}/v1/subscriptions/${s.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${CREDS.CARD_A_SECRET_KEY}` } });
    await sim.idle();
    expect(sim.billing.subscriptionsOf(customer).length).toBe(1);
    expect(await record(m, s.id)).toMatchObject({ status: 'canceled', cancel_reason: 'cancellation_requested', recovered_by: null });
  });
});

describe('commission: application fee back-fill and refunds', () => {
  /** A card-a reader sale completed by the simulator's signed webhook; answers its payment intent and charge. */
  async function paidReaderSale(m: DemoSeedResult) {
    await cardAProfile(m);
    const token = await api.deviceToken(m, 'kiosk');
    const created = await api.call('POST', '/api/kiosk/payment/create-intent', { token, deviceKey: true, body: { lines: [{ item_id: m.items[0]!.id, qty: 2 }] } });
    expect(created.status).toBe(200);
    const t = created.body.data;
    await sim.complete(t.payment_snapshot.reader_id);
    await sim.idle();
    const pi = sim.intent(t.payment_snapshot.id)!;
    return { t, pi, charge: pi.latest_charge! };
  }
  const ledger = (merchantId: string) => api.deps.db.selectFrom('commission_ledger').selectAll().where('merchant_id', '=', merchantId).orderBy('created_at').orderBy('id').execute();

  test('a captured card-a payment has a ledger row; application_fee.created back-fills its fee once', async () => {
    const m = await api.seed('cafee');
    const { t, pi, charge } = await paidReaderSale(m);
    expect((await tdbOf(m).selectFrom('transactions').select('status').where('id', '=', t.id).executeTakeFirstOrThrow()).status).toBe('Complete');
    expect(await ledger(m.merchant.id)).toEqual([expect.objectContaining({ source: 'card_a_payment', source_ref: pi.id, is_adjustment: false, commission_amount: 0, fee_amount: null })]);

    const fee = await simPost(`/_sim/charges/${charge}/application_fee`, { amount: 37 });
    expect(fee.status).toBe(200);
    expect(await ledger(m.merchant.id)).toEqual([expect.objectContaining({ source_ref: pi.id, commission_amount: 37, fee_amount: 37 })]);
    const event = sim.webhooks.findLast((w: any) => w.body.type === 'application_fee.created')!.body as any;
    expect((await logsOf('application_fee.created', m.merchant.id))[0]).toMatchObject({ status: 'processed', event_id: event.id });
    // The same delivery again is a duplicate; nothing changes.
    expect((await post(JSON.stringify(event))).status).toBe(200);
    expect((await logsOf('application_fee.created', m.merchant.id)).map((l) => l.status)).toEqual(['processed', 'duplicate']);
    expect((await ledger(m.merchant.id)).length).toBe(1);
  });

  test('a fee for a charge the ledger does not know yet is stored as failed (replayable), not guessed', async () => {
    const raw = JSON.stringify({ id: `evt_${crypto.randomUUID().replaceAll('-', '')}`, object: 'event', created: now(), type: 'application_fee.created', data: { object: { id: 'fee_x', object: 'application_fee', amount: 10, charge: 'ch_unknown' } }, livemode: false });
    expect((await post(raw)).status).toBe(200);
    expect((await api.deps.db.selectFrom('webhook_logs').selectAll().where('event_id', '=', JSON.parse(raw).id).executeTakeFirstOrThrow())).toMatchObject({ status: 'failed', merchant_id: null });
  });

  test('charge.refunded adjusts the commission in proportion, partial refunds each once, claimed once', async () => {
    const m = await api.seed('carefund');
    const { pi, charge } = await paidReaderSale(m);
    await simPost(`/_sim/charges/${charge}/application_fee`, { amount: 100 });
    const refund = (amount?: number) =>
      fetch(`${sim.url}/v1/refunds`, { method: 'POST', headers: { authorization: `Bearer ${CREDS.CARD_A_SECRET_KEY}`, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ charge, ...(amount ? { amount: String(amount) } : {}) }) });
    const quarter = pi.amount / 4;
    expect((await refund(quarter)).status).toBe(200);
    await sim.idle();
    let rows = await ledger(m.merchant.id);
    const entry = rows.find((r) => !r.is_adjustment)!;
    expect(rows.filter((r) => r.is_adjustment).map((r) => [r.commission_amount, r.reason, r.adjusts_id])).toEqual([[-25, 'card_a_refund', entry.id]]);
    const first = sim.webhooks.findLast((w: any) => w.body.type === 'charge.refunded')!.body as any;
    // The rest is refunded: the adjustments sum to the whole commission.
    expect((await refund()).status).toBe(200);
    await sim.idle();
    rows = await ledger(m.merchant.id);
    expect(rows.filter((r) => r.is_adjustment).map((r) => r.commission_amount)).toEqual([-25, -75]);
    // A replayed first event is a duplicate and adds nothing.
    expect((await post(JSON.stringify(first))).status).toBe(200);
    expect((await ledger(m.merchant.id)).filter((r) => r.is_adjustment).length).toBe(2);
    expect((await logsOf('charge.refunded', m.merchant.id)).map((l) => l.status)).toEqual(['processed', 'processed', 'duplicate']);
  });

  const refundAt = (charge: string, amount?: number) =>
    fetch(`${sim.url}/v1/refunds`, { method: 'POST', headers: { authorization: `Bearer ${CREDS.CARD_A_SECRET_KEY}`, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ charge, ...(amount ? { amount: String(amount) } : {}) }) });

  test('charge.refunded delivered out of order: the older event (a quarter refunded) arriving after the full refund does not undo the clawback', async () => {
    const m = await api.seed('carefundorder');
    const { pi, charge } = await paidReaderSale(m);
    await simPost(`/_sim/charges/${charge}/application_fee`, { amount: 100 });
    expect((await refundAt(charge, pi.amount / 4)).status).toBe(200);
    await sim.idle();
    const older = sim.webhooks.findLast((w: any) => w.body.type === 'charge.refunded')!.body as any;
    expect(older.data.object.amount_refunded).toBe(pi.amount / 4);
    expect((await refundAt(charge)).status).toBe(200);
    await sim.idle();
    // card-a does not guarantee order: another delivery of the older fact (amount_refunded a quarter) arrives last.
    expect((await post(copyOf(older))).status).toBe(200);
    const rows = await ledger(m.merchant.id);
    expect(rows.filter((r) => r.is_adjustment).map((r) => r.commission_amount)).toEqual([-25, -75]);
    expect(rows.reduce((sum, r) => sum + r.commission_amount, 0)).toBe(0);
    expect((await logsOf('charge.refunded', m.merchant.id)).map((l) => l.status)).toEqual(['processed', 'processed', 'ignored']);
  });

  test('a refund processed before the application fee attaches is clawed back when the fee is back-filled: a fully refunded charge nets no commission', async () => {
    const m = await api.seed('cafeelate');
    const { pi, charge } = await paidReaderSale(m);
    expect((await refundAt(charge)).status).toBe(200);
    await sim.idle();
    // The refund found no commission yet (the fee attaches after payment success).
    expect((await logsOf('charge.refunded', m.merchant.id)).map((l) => l.status)).toEqual(['ignored']);
    expect((await simPost(`/_sim/charges/${charge}/application_fee`, { amount: 100 })).status).toBe(200);
    await sim.idle();
    const rows = await ledger(m.merchant.id);
    const entry = rows.find((r) => !r.is_adjustment)!;
    expect(entry).toMatchObject({ source_ref: pi.id, fee_amount: 100, commission_amount: 100 });
    const fee = sim.webhooks.findLast((w: any) => w.body.type === 'application_fee.created')!.body as any;
    expect(rows.filter((r) => r.is_adjustment).map((r) => [r.commission_amount, r.reason, r.adjusts_id, r.source_ref])).toEqual([[-100, 'card_a_refund', entry.id, fee.id]]);
    expect((await logsOf('application_fee.created', m.merchant.id)).map((l) => l.status)).toEqual(['processed']);
  });
});

describe('payment failures mark the transaction', () => {
  test('payment_intent.payment_failed leaves it Unpaid with the failure; payment_intent.canceled cancels it', async () => {
    const m = await api.seed('cafail');
    await cardAProfile(m);
    const token = await api.deviceToken(m, 'kiosk');
    const start = async () => {
      const r = await api.call('POST', '/api/kiosk/payment/create-intent', { token, deviceKey: true, body: { lines: [{ item_id: m.items[0]!.id, qty: 1 }] } });
      expect(r.status).toBe(200);
      return r.body.data;
    };
    const intentEvent = (t: any, type: string) =>
      JSON.stringify({
        id: `evt_${crypto.randomUUID().replaceAll('-', '')}`,
        object: 'event',
        created: now(),
        type,
        data: { object: { id: t.payment_snapshot.id, object: 'payment_intent', status: type === 'payment_intent.canceled' ? 'canceled' : 'requires_payment_method', metadata: sim.intent(t.payment_snapshot.id)!.metadata } },
        livemode: false,
      });
    const status = async (id: string) => (await tdbOf(m).selectFrom('transactions').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
    const a = await start();
    expect((await post(intentEvent(a, 'payment_intent.payment_failed'))).status).toBe(200);
    expect(await status(a.id)).toBe('Unpaid');
    await sim.decline(a.payment_snapshot.reader_id).catch(() => undefined);
    await sim.idle();
    const b = await start();
    expect((await post(intentEvent(b, 'payment_intent.canceled'))).status).toBe(200);
    expect(await status(b.id)).toBe('Cancelled');
  });
});

describe('provider choice: the location\'s payment profile decides the kiosk\'s provider (spec 3 "Provider choice" 1)', () => {
  test('a card-a account connected on the default profile moves the kiosk to card-a once its onboarding finishes; another default, another profile for the location or charges stopped move it', async () => {
    const m = await api.seed('caprov');
    const owner = await api.ownerToken(m);
    const kiosk = await api.deviceToken(m, 'kiosk');
    const loc = m.devices.find((d) => d.id === m.kiosk.device_id)!.location_id;
    const otherLoc = m.locations.find((l) => l.id !== loc)!.id;
    const S = '/api/back-office/settings';
    const provider = async (id = loc) => (await api.call('GET', `${S}/locations/${id}/terminal-options`, { token: owner })).body.data.in_person_provider;
    /** The provider a new kiosk order is stamped with; its terminal payment is cancelled after, so the next one can start. */
    const stamped = async () => {
      const r = await api.call('POST', '/api/kiosk/payment/create-intent', { token: kiosk, deviceKey: true, body: { lines: [{ item_id: m.items[0]!.id, qty: 1 }] } });
      expect(r.status).toBe(200);
      expect((await api.call('POST', '/api/kiosk/payment/cancel-action', { token: kiosk, deviceKey: true, body: { idempotency_key: r.body.data.idempotency_key } })).status).toBe(200);
      return r.body.data.payment_provider;
    };

    // Nothing connected: the configured kiosk default.
    expect(await provider()).toBeNull();
    expect(await stamped()).toBe('card-b');
    const main = (await api.call('POST', PP, { token: owner, body: { name: 'Main' } })).body.data.id;
    // A card-a account still onboarding, on the profile made the default: it cannot take a payment yet.
    const cardAp = (await api.call('POST', PP, { token: owner, body: { name: 'Card-a payments' } })).body.data.id;
    const link = await api.call('POST', `${PP}/${cardAp}/card-a/url`, { token: owner, body: {} });
    expect(link.status).toBe(200);
    const account = link.body.data.account_id as string;
    expect((await api.call('POST', `${PP}/${cardAp}/default`, { token: owner })).status).toBe(200);
    expect(await provider()).toBeNull();
    expect(await stamped()).toBe('card-b');

    // The merchant finishes onboarding at card-a; its signed account.updated reaches the API.
    expect((await simPost(`/_sim/accounts/${account}/complete-onboarding`)).status).toBe(200);
    await sim.idle();
    expect((await logsOf('account.updated', m.merchant.id)).map((l) => l.status)).toEqual(['processed']);
    expect((await api.call('GET', `${PP}/${cardAp}`, { token: owner })).body.data).toMatchObject({ card_a_account_id: account, card_a_charges_enabled: true, in_person_provider: 'card-a' });
    expect(await provider()).toBe('card-a');
    expect(await provider(otherLoc)).toBe('card-a');
    const onboarding = await api.call('GET', '/api/back-office/payment-onboarding-status', { token: owner });
    expect(onboarding.body.data.locations.find((l: { location_id: string }) => l.location_id === loc)).toMatchObject({ in_person_provider: 'card-a', ready: true });
    const setup = await api.call('GET', '/api/back-office/setup-status', { token: owner });
    expect(setup.body.data.steps.find((s: { key: string }) => s.key === 'payments')).toMatchObject({ done: true });
    expect(await stamped()).toBe('card-a');

    // The default moves back to a profile without accounts: card-b again.
    expect((await api.call('POST', `${PP}/${main}/default`, { token: owner })).status).toBe(200);
    expect(await provider()).toBeNull();
    expect(await stamped()).toBe('card-b');

    // The kiosk's location alone chooses the card-a profile; the other location stays on the default.
    expect(await api.call('PUT', `${S}/locations/${loc}`, { token: owner, body: { payment_profile_id: cardAp } })).toMatchObject({ status: 200, body: { data: { payment_profile_id: cardAp } } });
    expect(await provider()).toBe('card-a');
    expect(await provider(otherLoc)).toBeNull();
    expect(await stamped()).toBe('card-a');
    const enabledEvent = sim.webhooks.findLast((w: any) => w.body.type === 'account.updated')!.body as any;

    // card-a stops the account's charges: card-b again.
    expect((await simPost(`/_sim/accounts/${account}/disable-charges`)).status).toBe(200);
    await sim.idle();
    expect((await api.call('GET', `${PP}/${cardAp}`, { token: owner })).body.data).toMatchObject({ card_a_charges_enabled: false, in_person_provider: null });
    expect(await provider()).toBeNull();
    expect(await stamped()).toBe('card-b');
    // The earlier "charges enabled" event delivered late changes nothing: the account is read at card-a.
    expect((await post(copyOf(enabledEvent))).status).toBe(200);
    expect(await provider()).toBeNull();
    expect((await logsOf('account.updated', m.merchant.id)).map((l) => l.status)).toEqual(['processed', 'processed', 'ignored']);
  });
});
