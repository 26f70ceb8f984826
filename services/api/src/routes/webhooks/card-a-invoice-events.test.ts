import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import { startCardASimulator, type CardASimulator } from '@pos/providers/payments';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { failedInvoiceKey } from '@pos/core/webhooks/card-a-invoices';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

// Spec 3 "Card-a events" beyond payments and subscriptions: invoice.paid drives the reseller subscription
// commission and the invoice-collection commission, invoice.voided, a refund of an invoice's charge;
// capability.updated and person.* refresh the connected account; customer.updated. The card-a simulator
// sends its own signed events to the running API; tests re-send signed copies to replay them.
let sim: CardASimulator;
let api: TestApi;
let server: { stop(): unknown };
let webhookUrl: string;
const SECRET = 'whsec_invoice_events_0123';
const CREDS = { CARD_A_SECRET_KEY: 'sk_test_cainvoices' };
const RESELLER_BPS = 1000;
const COLLECTION_BPS = 150;

beforeAll(async () => {
  sim = startCardASimulator({ secretKey: CREDS.CARD_A_SECRET_KEY, webhookSecret: SECRET });
  api = await createTestApi({
    env: { ...CREDS, CARD_A_BASE_URL: sim.url, CARD_A_WEBHOOK_SECRET: SECRET, CARD_A_RESELLER_COMMISSION_BPS: String(RESELLER_BPS), CARD_A_INVOICE_COLLECTION_BPS: String(COLLECTION_BPS) },
  });
  server = api.app.listen({ port: 0, hostname: '127.0.0.1' });
  webhookUrl = `http://127.0.0.1:${api.app.server!.port}/api/card-a-webhook/BE`;
  sim.setWebhookUrl(webhookUrl);
});
afterAll(async () => {
  await sim.idle();
  await server.stop();
  await api.close();
  await sim.stop();
});

const now = () => Math.floor(Date.now() / 1000);
const sign = (raw: string, t = now()) => `t=${t},v1=${createHmac('sha256', SECRET).update(`${t}.${raw}`).digest('hex')}`;
const post = (raw: string) => api.call('POST', '/api/card-a-webhook/BE', { rawBody: raw, headers: { 'card-a-signature': sign(raw) } });
const event = (type: string, object: unknown) => JSON.stringify({ id: `evt_${crypto.randomUUID().replaceAll('-', '')}`, object: 'event', created: now(), type, data: { object }, livemode: false });
/** Another delivery of an event the simulator sent, under a new event id. */
const copyOf = (e: any) => JSON.stringify({ ...e, id: `evt_${crypto.randomUUID().replaceAll('-', '')}` });
const simPost = async (path: string, body: unknown = {}) => {
  const r = await fetch(`${sim.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  await sim.idle();
  return { status: r.status, body: (await r.json()) as any };
};
const lastSent = (type: string) => sim.webhooks.findLast((w: any) => w.body.type === type)!.body as any;
const logsOf = (type: string, merchantId: string) =>
  api.deps.db.selectFrom('webhook_logs').select(['status', 'error', 'event_id']).where('provider', '=', 'card-a').where('event_type', '=', type).where('merchant_id', '=', merchantId).orderBy('created_at').execute();
const logOf = (eventId: string) => api.deps.db.selectFrom('webhook_logs').selectAll().where('event_id', '=', eventId).executeTakeFirstOrThrow();
const ledger = (merchantId: string) =>
  api.deps.db
    .selectFrom('commission_ledger')
    .select(['source', 'source_ref', 'is_adjustment', 'adjusts_id', 'commission_amount', 'reason', 'status', 'reseller_id', 'id'])
    .where('merchant_id', '=', merchantId)
    .orderBy('is_adjustment')
    .orderBy('source', 'desc')
    .orderBy('created_at')
    .execute();
/** Runs `fn` with card-a's deliveries lost (still listed in `sim.webhooks`), so the test delivers them in its own order. */
async function held<T>(fn: () => Promise<T>): Promise<T> {
  sim.setWebhookUrl('http://127.0.0.1:9/lost');
  try {
    return await fn();
  } finally {
    await sim.idle();
    sim.setWebhookUrl(webhookUrl);
  }
}
const refundAtCardA = async (charge: string, amount?: number) => {
  const r = await fetch(`${sim.url}/v1/refunds`, { method: 'POST', headers: { authorization: `Bearer ${CREDS.CARD_A_SECRET_KEY}`, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ charge, ...(amount ? { amount: String(amount) } : {}) }) });
  expect(r.status).toBe(200);
  await sim.idle();
};
const tdbOf = (m: DemoSeedResult) => bindTenant(api.deps.db, m.merchant.tenant_database);

/** A device subscription at the merchant's first location as the service creates it (metadata `location_id`), known locally. */
async function subscribed(m: DemoSeedResult) {
  const customer = `cus_${crypto.randomUUID().replaceAll('-', '').slice(0, 14)}`;
  const s = await api.deps.payments.cardA!.createSubscription({ customer, price: 'price_kiosk_monthly', paymentMethod: null, metadata: { location_id: m.locations[0]!.id }, idempotencyKey: crypto.randomUUID() });
  await sim.idle();
  expect(await tdbOf(m).selectFrom('billing_subscriptions').select('id').where('provider_subscription_id', '=', s.id).executeTakeFirst()).toBeDefined();
  return { s, customer };
}

describe('invoice.paid: reseller subscription commission and invoice-collection commission', () => {
  test('a paid device subscription invoice of a merchant with a reseller: one row of each, at the configured rates; a replay or another delivery writes nothing twice', async () => {
    const m = await api.seed('invres');
    const reseller = crypto.randomUUID();
    await api.deps.db.updateTable('merchants').set({ reseller_id: reseller }).where('id', '=', m.merchant.id).execute();
    const { s } = await subscribed(m);
    const paid = await simPost(`/_sim/subscriptions/${s.id}/invoice-paid`, { amount: 4900 });
    expect(paid.status).toBe(200);
    const inv = paid.body.id as string;
    const rows = await ledger(m.merchant.id);
    expect(rows.map(({ id: _id, ...r }) => r)).toEqual([
      { source: 'card_a_reseller_subscription', source_ref: inv, is_adjustment: false, adjusts_id: null, commission_amount: 490, reason: null, status: 'recorded', reseller_id: reseller },
      { source: 'card_a_invoice_collection', source_ref: inv, is_adjustment: false, adjusts_id: null, commission_amount: 74, reason: null, status: 'recorded', reseller_id: null },
    ]);
    const sent = lastSent('invoice.paid');
    expect(await logsOf('invoice.paid', m.merchant.id)).toEqual([{ status: 'processed', error: null, event_id: sent.id }]);
    // The same delivery again is claimed already; another delivery of the same invoice finds its rows.
    expect((await post(JSON.stringify(sent))).status).toBe(200);
    expect((await post(copyOf(sent))).status).toBe(200);
    expect((await logsOf('invoice.paid', m.merchant.id)).map((l) => l.status)).toEqual(['processed', 'duplicate', 'ignored']);
    expect((await ledger(m.merchant.id)).length).toBe(2);
    // The merchant moves to another reseller: the commission already earned stays with the first.
    await api.deps.db.updateTable('merchants').set({ reseller_id: crypto.randomUUID() }).where('id', '=', m.merchant.id).execute();
    expect((await post(copyOf(sent))).status).toBe(200);
    expect((await ledger(m.merchant.id)).map((r) => r.reseller_id)).toEqual([reseller, null]);
  });

  test('a merchant without a reseller: the invoice-collection commission only', async () => {
    const m = await api.seed('invnores');
    const { s } = await subscribed(m);
    const inv = (await simPost(`/_sim/subscriptions/${s.id}/invoice-paid`, { amount: 10_000 })).body.id as string;
    expect((await ledger(m.merchant.id)).map((r) => [r.source, r.source_ref, r.commission_amount, r.reseller_id])).toEqual([['card_a_invoice_collection', inv, 150, null]]);
    expect((await logsOf('invoice.paid', m.merchant.id)).map((l) => l.status)).toEqual(['processed']);
    // Given a reseller afterwards, another delivery (or a replay) of the same invoice writes no reseller
    // row: an invoice's rows are written all at once, by its first run, or not at all.
    await api.deps.db.updateTable('merchants').set({ reseller_id: crypto.randomUUID() }).where('id', '=', m.merchant.id).execute();
    expect((await post(copyOf(lastSent('invoice.paid')))).status).toBe(200);
    expect((await ledger(m.merchant.id)).map((r) => [r.source, r.source_ref, r.commission_amount, r.reseller_id])).toEqual([['card_a_invoice_collection', inv, 150, null]]);
  });

  test('an invoice paid out of band, or not issued by the service (no subscription, or one the service did not create), earns no commission', async () => {
    const m = await api.seed('invskip');
    await api.deps.db.updateTable('merchants').set({ reseller_id: crypto.randomUUID() }).where('id', '=', m.merchant.id).execute();
    const { s, customer } = await subscribed(m);
    const oob = await simPost(`/_sim/subscriptions/${s.id}/invoice-paid`, { amount: 4900, out_of_band: true });
    expect(oob.body).toMatchObject({ status: 'paid', paid_out_of_band: true, charge: null });
    // The customer is the merchant's (the tenant resolves), but these invoices are not the service's.
    const manual = { id: 'in_manual_1', object: 'invoice', customer, subscription: null, subscription_details: null, amount_paid: 2500, paid_out_of_band: false, status: 'paid' };
    const foreign = { ...manual, id: 'in_foreign_1', subscription: 'sub_made_in_the_dashboard', subscription_details: { metadata: {} } };
    expect((await post(event('invoice.paid', manual))).status).toBe(200);
    expect((await post(event('invoice.paid', foreign))).status).toBe(200);
    expect((await logsOf('invoice.paid', m.merchant.id)).map((l) => l.status)).toEqual(['ignored', 'ignored', 'ignored']);
    expect(await ledger(m.merchant.id)).toEqual([]);
  });

  test('a refund of a paid invoice\'s charge claws both commissions back in proportion, each refund once', async () => {
    const m = await api.seed('invrefund');
    const reseller = crypto.randomUUID();
    await api.deps.db.updateTable('merchants').set({ reseller_id: reseller }).where('id', '=', m.merchant.id).execute();
    const { s } = await subscribed(m);
    const inv = (await simPost(`/_sim/subscriptions/${s.id}/invoice-paid`, { amount: 8000 })).body;
    expect(inv.charge).toEqual(expect.stringMatching(/^ch_/));
    const refund = (amount?: number) =>
      fetch(`${sim.url}/v1/refunds`, { method: 'POST', headers: { authorization: `Bearer ${CREDS.CARD_A_SECRET_KEY}`, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ charge: inv.charge, ...(amount ? { amount: String(amount) } : {}) }) });
    expect((await refund(2000)).status).toBe(200);
    await sim.idle();
    const first = lastSent('charge.refunded');
    let rows = await ledger(m.merchant.id);
    const [res, col] = rows.filter((r) => !r.is_adjustment);
    expect([res!.commission_amount, col!.commission_amount]).toEqual([800, 120]);
    expect(rows.filter((r) => r.is_adjustment).map((r) => [r.source, r.commission_amount, r.reason, r.adjusts_id, r.source_ref, r.reseller_id])).toEqual([
      ['card_a_reseller_subscription', -200, 'card_a_refund', res!.id, first.id, reseller],
      ['card_a_invoice_collection', -30, 'card_a_refund', col!.id, first.id, null],
    ]);
    expect((await refund()).status).toBe(200);
    await sim.idle();
    expect((await post(JSON.stringify(first))).status).toBe(200);
    rows = await ledger(m.merchant.id);
    expect(rows.filter((r) => r.is_adjustment).map((r) => r.commission_amount)).toEqual([-200, -600, -30, -90]);
    expect(rows.reduce((sum, r) => sum + r.commission_amount, 0)).toBe(0);
    expect((await logsOf('charge.refunded', m.merchant.id)).map((l) => l.status)).toEqual(['processed', 'processed', 'duplicate']);
  });
});

describe('a refund of an invoice\'s charge processed before, after or with its invoice.paid', () => {
  /**
   * A merchant with a reseller, a paid 100.00 invoice and a refund of `refund` (all of it when absent)
   * made at card-a, neither event delivered yet: the test delivers them.
   */
  async function paidAndRefunded(name: string, refund?: number) {
    const m = await api.seed(name);
    const reseller = crypto.randomUUID();
    await api.deps.db.updateTable('merchants').set({ reseller_id: reseller }).where('id', '=', m.merchant.id).execute();
    const { s } = await subscribed(m);
    const { inv, paid, refunded } = await held(async () => {
      const inv = (await simPost(`/_sim/subscriptions/${s.id}/invoice-paid`, { amount: 10_000 })).body;
      const paid = lastSent('invoice.paid');
      await refundAtCardA(inv.charge, refund);
      return { inv, paid, refunded: lastSent('charge.refunded') };
    });
    expect(refunded.data.object).toMatchObject({ invoice: inv.id, amount_refunded: refund ?? 10_000 });
    return { m, reseller, inv, paid, refunded };
  }
  /** The merchant's rows and adjustments as [source, amount, the adjusted row's source, source_ref]. */
  const invoiceLedger = async (merchantId: string) => {
    const rows = await ledger(merchantId);
    const sourceOf = new Map(rows.map((r) => [r.id, r.source]));
    return rows.map((r) => [r.source, r.commission_amount, r.adjusts_id ? sourceOf.get(r.adjusts_id) : null, r.source_ref]);
  };
  const net = async (merchantId: string) => (await ledger(merchantId)).reduce((sum, r) => sum + r.commission_amount, 0);
  const statusOf = async (raw: any) => (await logOf(raw.id)).status;

  test('the refund first (stored location_not_resolved): invoice.paid writes the commission and claws the refund back at once; the refund again changes nothing', async () => {
    const { m, inv, paid, refunded } = await paidAndRefunded('invrefirst');
    expect((await post(JSON.stringify(refunded))).status).toBe(200);
    expect(await statusOf(refunded)).toBe('location_not_resolved');
    expect((await post(JSON.stringify(paid))).status).toBe(200);
    expect(await statusOf(paid)).toBe('processed');
    expect(await invoiceLedger(m.merchant.id)).toEqual([
      ['card_a_reseller_subscription', 1000, null, inv.id],
      ['card_a_invoice_collection', 150, null, inv.id],
      ['card_a_reseller_subscription', -1000, 'card_a_reseller_subscription', paid.id],
      ['card_a_invoice_collection', -150, 'card_a_invoice_collection', paid.id],
    ]);
    expect(await net(m.merchant.id)).toBe(0);
    // card-a delivers the refund again (or operations replay it): already clawed back.
    expect((await post(copyOf(refunded))).status).toBe(200);
    expect((await post(copyOf(paid))).status).toBe(200);
    expect((await logsOf('charge.refunded', m.merchant.id)).map((l) => l.status)).toEqual(['ignored']);
    expect((await logsOf('invoice.paid', m.merchant.id)).map((l) => l.status)).toEqual(['processed', 'ignored']);
    expect(await net(m.merchant.id)).toBe(0);
    expect((await ledger(m.merchant.id)).length).toBe(4);
  });

  test('invoice.paid delivered first, card-a having refunded already: the same net; the refund delivered after claws back nothing twice', async () => {
    const { m, paid, refunded } = await paidAndRefunded('invrefafter');
    expect((await post(JSON.stringify(paid))).status).toBe(200);
    expect((await post(JSON.stringify(refunded))).status).toBe(200);
    expect([await statusOf(paid), await statusOf(refunded)]).toEqual(['processed', 'ignored']);
    expect((await invoiceLedger(m.merchant.id)).map((r) => r[1])).toEqual([1000, 150, -1000, -150]);
    expect(await net(m.merchant.id)).toBe(0);
  });

  test('both delivered at once: the refund is clawed back exactly once, whichever runs first', async () => {
    for (const round of [1, 2, 3]) {
      const { m, paid, refunded } = await paidAndRefunded(`invrefboth${round}`);
      const answers = await Promise.all([post(JSON.stringify(paid)), post(JSON.stringify(refunded))]);
      expect(answers.map((a) => a.status)).toEqual([200, 200]);
      expect(await statusOf(paid)).toBe('processed');
      expect(['location_not_resolved', 'ignored', 'processed']).toContain(await statusOf(refunded));
      expect((await invoiceLedger(m.merchant.id)).map((r) => r[1])).toEqual([1000, 150, -1000, -150]);
      expect(await net(m.merchant.id)).toBe(0);
    }
  });

  test('a partial refund first: invoice.paid keeps the unrefunded share; the rest refunded later gives back the remainder', async () => {
    const { m, inv, paid, refunded } = await paidAndRefunded('invrefpart', 3000);
    expect((await post(JSON.stringify(refunded))).status).toBe(200);
    expect((await post(JSON.stringify(paid))).status).toBe(200);
    expect((await invoiceLedger(m.merchant.id)).map((r) => r[1])).toEqual([1000, 150, -300, -45]);
    expect(await net(m.merchant.id)).toBe(805);
    // The rest refunded, delivered as it happens.
    await refundAtCardA(inv.charge);
    const rest = lastSent('charge.refunded');
    expect(await statusOf(rest)).toBe('processed');
    expect((await invoiceLedger(m.merchant.id)).filter((r) => r[3] === rest.id).map((r) => r[1])).toEqual([-700, -105]);
    expect(await net(m.merchant.id)).toBe(0);
  });
});

describe('invoice events of a connected account', () => {
  test('an invoice.paid (or payment_failed) of a connected account earns nothing, even when its subscription metadata names our location; the platform\'s own earns by that metadata', async () => {
    const m = await api.seed('invconn');
    await api.deps.db.updateTable('merchants').set({ reseller_id: crypto.randomUUID() }).where('id', '=', m.merchant.id).execute();
    // The subscription's own events are lost: no local record, only its metadata names the location.
    const { paid, failed } = await held(async () => {
      const customer = `cus_${crypto.randomUUID().replaceAll('-', '').slice(0, 14)}`;
      const s = await api.deps.payments.cardA!.createSubscription({ customer, price: 'price_kiosk_monthly', paymentMethod: null, metadata: { location_id: m.locations[0]!.id }, idempotencyKey: crypto.randomUUID() });
      await simPost(`/_sim/subscriptions/${s.id}/invoice-paid`, { amount: 4900 });
      const paid = lastSent('invoice.paid');
      await simPost(`/_sim/subscriptions/${s.id}/invoice-failed`, { amount: 4900 });
      return { paid, failed: lastSent('invoice.payment_failed') };
    });
    expect(await tdbOf(m).selectFrom('billing_subscriptions').select('id').execute()).toEqual([]);
    const ofConnected = (e: any) => JSON.stringify({ ...e, id: `evt_${crypto.randomUUID().replaceAll('-', '')}`, account: 'acct_connected_1' });
    const connectedPaid = ofConnected(paid);
    const connectedFailed = ofConnected(failed);
    expect((await post(connectedPaid)).status).toBe(200);
    expect((await post(connectedFailed)).status).toBe(200);
    expect(await logOf(JSON.parse(connectedPaid).id)).toMatchObject({ status: 'ignored', error: null });
    expect(await logOf(JSON.parse(connectedFailed).id)).toMatchObject({ status: 'ignored', error: null });
    expect(await ledger(m.merchant.id)).toEqual([]);
    expect(await api.deps.redis.get(failedInvoiceKey(failed.data.object.subscription))).toBeNull();
    // The platform's own event of the same invoice: the metadata fallback still earns.
    expect((await post(JSON.stringify(paid))).status).toBe(200);
    expect(await logOf(paid.id)).toMatchObject({ status: 'processed', merchant_id: m.merchant.id });
    expect((await ledger(m.merchant.id)).map((r) => [r.source, r.commission_amount])).toEqual([
      ['card_a_reseller_subscription', 490],
      ['card_a_invoice_collection', 74],
    ]);
  });
});

describe('invoice.voided', () => {
  test('an open invoice voided is stored processed for its merchant (it had earned nothing); a voided invoice\'s rows are voided once and no refund adjusts them', async () => {
    const m = await api.seed('invvoid');
    const { s } = await subscribed(m);
    const open = (await simPost(`/_sim/subscriptions/${s.id}/invoice-failed`, { amount: 4900 })).body;
    expect((await simPost(`/_sim/invoices/${open.id}/void`)).body).toMatchObject({ id: open.id, status: 'void' });
    expect((await logsOf('invoice.voided', m.merchant.id)).map((l) => l.status)).toEqual(['processed']);
    expect(await ledger(m.merchant.id)).toEqual([]);

    // card-a refuses to void a paid invoice; should it ever report one voided, its commission is voided.
    const paid = (await simPost(`/_sim/subscriptions/${s.id}/invoice-paid`, { amount: 4900 })).body;
    expect((await simPost(`/_sim/invoices/${paid.id}/void`)).status).toBe(400);
    const voided = event('invoice.voided', { ...paid, status: 'void' });
    expect((await post(voided)).status).toBe(200);
    expect((await post(voided)).status).toBe(200);
    expect((await ledger(m.merchant.id)).map((r) => [r.source, r.status])).toEqual([['card_a_invoice_collection', 'voided']]);
    expect((await logsOf('invoice.voided', m.merchant.id)).map((l) => l.status)).toEqual(['processed', 'processed', 'duplicate']);
    const refunded = await fetch(`${sim.url}/v1/refunds`, { method: 'POST', headers: { authorization: `Bearer ${CREDS.CARD_A_SECRET_KEY}`, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ charge: paid.charge }) });
    expect(refunded.status).toBe(200);
    await sim.idle();
    expect((await logsOf('charge.refunded', m.merchant.id)).map((l) => l.status)).toEqual(['ignored']);
    expect((await ledger(m.merchant.id)).length).toBe(1);
  });
});

describe('connected account events and the billing customer', () => {
  const PP = '/api/back-office/settings/payment-profiles';
  /** A payment profile whose card-a account was created (onboarding link) but has not finished onboarding. */
  async function onboardingProfile(m: DemoSeedResult) {
    const owner = await api.ownerToken(m);
    const id = (await api.call('POST', PP, { token: owner, body: { name: 'Card-a payments' } })).body.data.id as string;
    const link = await api.call('POST', `${PP}/${id}/card-a/url`, { token: owner, body: {} });
    expect(link.status).toBe(200);
    const profile = async () => (await api.call('GET', `${PP}/${id}`, { token: owner })).body.data;
    expect(await profile()).toMatchObject({ card_a_charges_enabled: false, in_person_provider: null });
    return { account: link.body.data.account_id as string, profile };
  }

  test('capability.updated refreshes the profile\'s connected account (read at card-a), once per event', async () => {
    const m = await api.seed('cacap');
    const { account, profile } = await onboardingProfile(m);
    expect((await simPost(`/_sim/accounts/${account}/capability`, { status: 'active' })).status).toBe(200);
    const sent = lastSent('capability.updated');
    expect(sent.data.object).toMatchObject({ object: 'capability', account, status: 'active' });
    expect(await logsOf('capability.updated', m.merchant.id)).toEqual([{ status: 'processed', error: null, event_id: sent.id }]);
    expect(await profile()).toMatchObject({ card_a_account_id: account, card_a_charges_enabled: true, in_person_provider: 'card-a' });
    expect((await post(JSON.stringify(sent))).status).toBe(200);
    expect((await logsOf('capability.updated', m.merchant.id)).map((l) => l.status)).toEqual(['processed', 'duplicate']);
    // The capability turned inactive: charges stop, the kiosks go back to the default provider.
    await simPost(`/_sim/accounts/${account}/capability`, { status: 'inactive' });
    expect(await profile()).toMatchObject({ card_a_charges_enabled: false, in_person_provider: null });
    // An account no payment profile holds resolves no merchant.
    const stray = event('capability.updated', { id: 'card_payments', object: 'capability', account: 'acct_nobodys', status: 'active' });
    expect((await post(stray)).status).toBe(200);
    expect(await logOf(JSON.parse(stray).id)).toMatchObject({ status: 'location_not_resolved', merchant_id: null });
  });

  test('person.created and person.updated refresh the account: a representative failing verification stops its charges', async () => {
    const m = await api.seed('caperson');
    const { account, profile } = await onboardingProfile(m);
    await simPost(`/_sim/accounts/${account}/complete-onboarding`);
    expect(await profile()).toMatchObject({ card_a_charges_enabled: true });
    const person = (await simPost(`/_sim/accounts/${account}/persons`, { verification: 'unverified', charges_enabled: false })).body;
    expect(await profile()).toMatchObject({ card_a_charges_enabled: false, in_person_provider: null });
    await simPost(`/_sim/accounts/${account}/persons`, { id: person.id, verification: 'verified', charges_enabled: true });
    expect(await profile()).toMatchObject({ card_a_charges_enabled: true, in_person_provider: 'card-a' });
    expect((await logsOf('person.created', m.merchant.id)).map((l) => l.status)).toEqual(['processed']);
    expect((await logsOf('person.updated', m.merchant.id)).map((l) => l.status)).toEqual(['processed']);
    // Another delivery of the older person event: the account is read at card-a, so nothing changes.
    expect((await post(copyOf(sim.webhooks.find((w: any) => w.body.type === 'person.created')!.body))).status).toBe(200);
    expect(await profile()).toMatchObject({ card_a_charges_enabled: true });
    expect((await logsOf('person.created', m.merchant.id)).map((l) => l.status)).toEqual(['processed', 'ignored']);
  });

  test('customer.updated of a billing profile\'s customer is stored processed for its merchant (nothing local to change); an unknown customer resolves none', async () => {
    const m = await api.seed('cacust');
    const customer = `cus_${crypto.randomUUID().replaceAll('-', '').slice(0, 14)}`;
    await tdbOf(m).insertInto('billing_profiles').values({ id: crypto.randomUUID(), name: 'Head office', card_a_customer_id: customer }).execute();
    const before = await tdbOf(m).selectFrom('billing_profiles').selectAll().execute();
    const changed = event('customer.updated', { id: customer, object: 'customer', name: 'Renamed at card-a', email: 'billing@example.test' });
    expect((await post(changed)).status).toBe(200);
    expect(await logOf(JSON.parse(changed).id)).toMatchObject({ status: 'processed', merchant_id: m.merchant.id });
    expect(await tdbOf(m).selectFrom('billing_profiles').selectAll().execute()).toEqual(before);
    const unknown = event('customer.updated', { id: 'cus_nobodys', object: 'customer' });
    expect((await post(unknown)).status).toBe(200);
    expect(await logOf(JSON.parse(unknown).id)).toMatchObject({ status: 'location_not_resolved', merchant_id: null });
  });
});
