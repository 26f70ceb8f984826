import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { seedDemo, type DemoSeedResult } from '@pos/core/seed/demo-seed';
import { paymentProvidersFromEnv } from '@pos/core/payments/payment-providers';
import { AI_CREDITS_KIND } from '@pos/core/generation/ai-credit-purchases';
import { STALE_PURCHASE_AFTER_MS } from '@pos/core/generation/ai-credit-recovery';
import { CardAClient, startCardASimulator, type CardASimulator } from '@pos/providers/payments';
import { createPostCaptureSweepHandler } from './jobs/post-capture-sweep.handler.ts';
import { sweepAiCreditPurchases } from './jobs/ai-credit-purchase-sweep.ts';
import { devLogDriver } from './notifications/driver.ts';
import { deleteTenantOutbox, openTestEnv, type TestEnv } from './test-support.ts';

/**
 * An AI credit purchase charged to a saved card whose card-a answer was lost, and whose
 * `payment_intent.succeeded` never arrived (card-a sends no webhooks here), stays `pending`: the sweep
 * asks card-a (the stored intent, else a search by the purchase's metadata) and credits it once when
 * paid, marks it `failed` when card-a took nothing.
 */
let env: TestEnv;
let sim: CardASimulator;
let client: CardAClient;
let m: DemoSeedResult;
let tdb: TenantDb;
let customer: string;
const KEY = 'sk_test_credit_sweep';

beforeAll(async () => {
  env = await openTestEnv();
  sim = startCardASimulator({ secretKey: KEY });
  client = new CardAClient({ baseUrl: sim.url, secretKey: KEY });
  m = await seedDemo(env.handle.db, { slug: `credit-sweep-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: 'k'.repeat(20), pinPepper: 'p'.repeat(20) });
  tdb = bindTenant(env.handle.db, m.merchant.tenant_database);
  customer = (await client.createCustomer({ name: 'Credits', metadata: {} })).id;
});
afterAll(async () => {
  await deleteTenantOutbox(env.handle.db, m.merchant.tenant_database);
  await dropMerchant(env.handle.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
  await sim.stop();
  await env.close();
});

/** A pending saved-card purchase of the small package (10 credits, 5.00 EUR) made `ageMs` ago. */
async function pending(ageMs: number, providerRef: string | null = null): Promise<string> {
  const id = Bun.randomUUIDv7();
  await tdb
    .insertInto('ai_credit_purchases')
    .values({ id, package_id: 'small', credits: 10, amount: 500, currency: 'EUR', method: 'saved_card', provider_ref: providerRef, status: 'pending', created_by: null, created_at: new Date(Date.now() - ageMs), paid_at: null })
    .execute();
  return id;
}
/** card-a charges the purchase as `purchaseWithDefault` asks it to (same metadata and key); its answer is then "lost". */
async function charge(purchaseId: string, card = 'pm_card_visa', amount = 500) {
  const pm = (await client.attachPaymentMethod(card, customer)).id;
  const metadata = { kind: AI_CREDITS_KIND, purchase_id: purchaseId, merchant_id: m.merchant.id, location_id: m.locations[0]!.id };
  return client.chargeSavedCard({ amount, currency: 'EUR', customer, paymentMethod: pm, metadata, idempotencyKey: `ai-credits-${purchaseId}` }).catch(() => null);
}
const status = async (id: string) => (await tdb.selectFrom('ai_credit_purchases').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
const balance = async () => (await tdb.selectFrom('ai_credits').select('balance').where('id', '=', 1).executeTakeFirst())?.balance ?? 0;
const credited = async (id: string) => (await tdb.selectFrom('activity_logs').select('id').where('subject', '=', 'ai_credit_purchase').where('subject_id', '=', id).where('action', '=', 'credited').execute()).length;
const sweep = (redis = env.redis as typeof env.redis | undefined) => sweepAiCreditPurchases(env.handle.db, redis, client, new Date(), env.log, m.merchant.tenant_database);
const OLD = STALE_PURCHASE_AFTER_MS + 60_000;

describe('the AI credit purchase sweep', () => {
  test('paid at card-a (answer lost, no stored intent): credited once, found by its metadata', async () => {
    const id = await pending(OLD);
    expect((await charge(id))?.status).toBe('succeeded');
    const before = await balance();
    expect(await sweep()).toEqual({ merchants: 1, asked: 1, paid: 1, failed: 0, errors: 0 });
    expect(await status(id)).toBe('paid');
    expect(await balance()).toBe(before + 10);
    expect(await credited(id)).toBe(1);
    // Settled: not asked again.
    expect(await sweep(undefined)).toEqual({ merchants: 1, asked: 0, paid: 0, failed: 0, errors: 0 });
  });

  test('paid at card-a with its intent stored (the request died after storing it): credited from that intent', async () => {
    const id = await pending(OLD);
    const pi = (await charge(id))!;
    await tdb.updateTable('ai_credit_purchases').set({ provider_ref: pi.id }).where('id', '=', id).execute();
    const before = await balance();
    expect(await sweep()).toMatchObject({ asked: 1, paid: 1, failed: 0, errors: 0 });
    expect(await tdb.selectFrom('ai_credit_purchases').select(['status', 'provider_ref']).where('id', '=', id).executeTakeFirstOrThrow()).toEqual({ status: 'paid', provider_ref: pi.id });
    expect(await balance()).toBe(before + 10);
  });

  test('never charged (no intent at card-a) and declined: failed, nothing credited; a fresh one is left to its request', async () => {
    const never = await pending(OLD);
    const declined = await pending(OLD);
    expect(await charge(declined, 'pm_card_chargeDeclined')).toBeNull();
    const fresh = await pending(60_000);
    await charge(fresh);
    const before = await balance();
    expect(await sweep()).toEqual({ merchants: 1, asked: 2, paid: 0, failed: 2, errors: 0 });
    expect([await status(never), await status(declined), await status(fresh)]).toEqual(['failed', 'failed', 'pending']);
    expect(await balance()).toBe(before);
  });

  test('a succeeded intent of another amount does not credit the package; the purchase stays pending', async () => {
    const id = await pending(OLD);
    await charge(id, 'pm_card_visa', 1);
    const before = await balance();
    expect(await sweep()).toMatchObject({ asked: 1, paid: 0, failed: 0, errors: 0 });
    expect(await status(id)).toBe('pending');
    expect(await balance()).toBe(before);
    await tdb.updateTable('ai_credit_purchases').set({ status: 'failed' }).where('id', '=', id).execute();
  });

  test('card-a away: counted as an error, left pending, settled by a later sweep', async () => {
    const id = await pending(OLD);
    await charge(id);
    const away = new CardAClient({ baseUrl: 'http://127.0.0.1:9', secretKey: KEY, timeoutMs: 2_000 });
    const before = await balance();
    expect(await sweepAiCreditPurchases(env.handle.db, env.redis, away, new Date(), env.log, m.merchant.tenant_database)).toMatchObject({ asked: 1, paid: 0, errors: 1 });
    expect(await status(id)).toBe('pending');
    expect(await sweep()).toMatchObject({ asked: 1, paid: 1, errors: 0 });
    expect(await balance()).toBe(before + 10);
  });

  test('two workers sweeping at once (the post-capture sweep job): one asks card-a, the package is credited once', async () => {
    const id = await pending(OLD);
    await charge(id);
    const before = await balance();
    const providers = paymentProvidersFromEnv({ CARD_A_BASE_URL: sim.url, CARD_A_SECRET_KEY: KEY });
    const worker = () => createPostCaptureSweepHandler({ redis: env.redis, payments: providers });
    const ctx = (n: number) => ({ db: env.handle.db, log: env.log, clock: { now: () => new Date() }, notifications: devLogDriver(env.log), jobId: `credit-sweep-${n}` });
    const payload = { at: new Date().toISOString(), tenant_database: m.merchant.tenant_database };
    await Promise.all([worker()(payload, ctx(1)), worker()(payload, ctx(2))]);
    expect(await status(id)).toBe('paid');
    expect(await balance()).toBe(before + 10);
    expect(await credited(id)).toBe(1);
    // Without Redis (away) both ask: the guarded update still credits once.
    const id2 = await pending(OLD);
    await charge(id2);
    const [s1, s2] = await Promise.all([sweep(undefined), sweep(undefined)]);
    expect(s1.paid + s2.paid).toBe(1);
    expect(await balance()).toBe(before + 20);
    expect(await credited(id2)).toBe(1);
  });
});

describe('card-a payment intent search (simulator)', () => {
  test('by metadata and status, newest first; a malformed query is 400', async () => {
    const tag = crypto.randomUUID();
    const a = await client.createPaymentIntent({ amount: 100, currency: 'EUR', paymentMethodTypes: ['card'], metadata: { tag }, idempotencyKey: crypto.randomUUID() });
    expect((await client.searchPaymentIntents(`metadata['tag']:'${tag}'`)).map((i) => i.id)).toEqual([a.id]);
    expect(await client.searchPaymentIntents(`metadata['tag']:'${tag}' AND status:'succeeded'`)).toEqual([]);
    expect(await client.searchPaymentIntents(`metadata['tag']:'${crypto.randomUUID()}'`)).toEqual([]);
    const bad = await fetch(`${sim.url}/v1/payment_intents/search?query=${encodeURIComponent('tag = x')}`, { headers: { authorization: `Bearer ${KEY}` } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: { type: 'invalid_request_error', code: 'parameter_invalid', message: 'Invalid search query.', param: 'query' } });
  });
});
