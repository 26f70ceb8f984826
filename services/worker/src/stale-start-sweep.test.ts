import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { seedDemo, type DemoSeedResult } from '@pos/core/seed/demo-seed';
import { paymentProvidersFromEnv } from '@pos/core/payments/payment-providers';
import { FREE_CAPTURE_AFTER_MS, findStaleStarts, ORPHANED_PENDING_AFTER_MS, STALE_START_AFTER_MS, STALE_START_WINDOW_MS } from '@pos/core/payments/stale-start-sweep';
import { createOnlinePayment } from '@pos/core/online-ordering/online-payment';
import { CardBClient, PlatformAClient, startCardASimulator, startCardBSimulator, startPlatformASimulator, type CardASimulator, type CardBSimulator, type PlatformASimulator } from '@pos/providers/payments';
import { sweepStaleStarts } from './jobs/stale-start-sweep.ts';
import { deleteTenantOutbox, openTestEnv, type TestEnv } from './test-support.ts';

/**
 * A payment whose webhook and poll were both lost (the kiosk gone without its key, the webhook's
 * processing failed while the database was away) is found by the sweep: the provider is asked, and the
 * order is completed when paid, left Unpaid when the attempt failed, left alone while it still runs.
 */
let env: TestEnv;
let sim: CardBSimulator;
let pa: PlatformASimulator;
let cardA: CardASimulator;
let m: DemoSeedResult;
let tdb: TenantDb;
const CREDS = { CARD_B_CLIENT_ID: 'stale', CARD_B_CLIENT_SECRET: 'stale-secret' };
// card-a sends no webhooks here (no URL): every one of its events is lost.
const providers = () => paymentProvidersFromEnv({ CARD_B_BASE_URL: sim.url, ...CREDS, PLATFORM_A_BASE_URL: pa.url, PLATFORM_A_ACCESS_TOKEN: 'stale-pa', CARD_A_BASE_URL: cardA.url, CARD_A_SECRET_KEY: 'sk_test_stale' });

beforeAll(async () => {
  env = await openTestEnv();
  sim = startCardBSimulator({ clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET });
  pa = startPlatformASimulator({ accessToken: 'stale-pa' });
  cardA = startCardASimulator({ secretKey: 'sk_test_stale' });
  m = await seedDemo(env.handle.db, { slug: `stale-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: 'k'.repeat(20), pinPepper: 'p'.repeat(20) });
  tdb = bindTenant(env.handle.db, m.merchant.tenant_database);
});
afterAll(async () => {
  await deleteTenantOutbox(env.handle.db, m.merchant.tenant_database);
  await dropMerchant(env.handle.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
  await sim.stop();
  await pa.stop();
  await cardA.stop();
  await env.close();
});

let orderNo = 7000;
/** A kiosk order whose card-b sale started `ageMs` ago on its own terminal (so sales never collide). */
async function started(ageMs: number): Promise<{ id: string; key: string }> {
  const id = Bun.randomUUIDv7();
  const key = `idemp_${m.kiosk.device_id}_${Date.now()}${++orderNo}`;
  const terminalId = `STALE-${orderNo}`;
  const item = m.items[0]!;
  const at = new Date(Date.now() - ageMs);
  await tdb
    .insertInto('transactions')
    .values({ id, location_id: m.locations[0]!.id, device_id: m.kiosk.device_id, channel: 'kiosk', order_no: orderNo, status: 'Awaiting Payment', order_status: null, payment_provider: 'card-b', payment_snapshot: JSON.stringify({ provider: 'card-b', idempotency_key: key, sessionId: key, terminalId }), idempotency_key: key, all_idempotency_keys: [key], receipt_no: null, subtotal: item.unit_price, discount: 0, vat: 0, total: item.unit_price, by_vat_rate: JSON.stringify([]), offers: JSON.stringify([]), menu_version: 1, customer_id: null, loyalty_token: null, cart_session_id: null, created_at: at, updated_at: at })
    .execute();
  const client = new CardBClient({ baseUrl: sim.url, clientId: CREDS.CARD_B_CLIENT_ID, clientSecret: CREDS.CARD_B_CLIENT_SECRET });
  await client.startSale({ sessionId: key, terminalId, cashRegisterId: m.kiosk.device_id, amount: item.unit_price, currencyCode: '978', merchantReference: `${m.locations[0]!.id}:${orderNo}`, customerTrns: `Order ${orderNo}` });
  return { id, key };
}
const only = (more: { limit?: number } = {}) => ({ tenantDatabase: m.merchant.tenant_database, ...more });
/** Time passes: every start may be asked about again. */
async function forgetAsked() {
  const keys = await env.redis.keys(`stale_start_asked:${m.merchant.tenant_database}:*`);
  if (keys.length) await env.redis.del(...keys);
}
const row = (id: string) => tdb.selectFrom('transactions').select(['status', 'receipt_no']).where('id', '=', id).executeTakeFirstOrThrow();

describe('the stale payment sweep', () => {
  test('finds only starts left waiting between five minutes and two hours, oldest first', async () => {
    const fresh = await started(60_000);
    const old = await started(STALE_START_AFTER_MS + 60_000);
    const older = await started(STALE_START_AFTER_MS + 120_000);
    const ancient = await started(STALE_START_WINDOW_MS + 60_000);
    const ids = (await findStaleStarts(tdb, new Date())).map((r) => r.id);
    expect(ids.filter((id) => [fresh.id, old.id, older.id, ancient.id].includes(id))).toEqual([older.id, old.id]);
    for (const t of [fresh, old, older, ancient]) await sim.complete(t.key);
    await sweepStaleStarts(env.handle.db, env.redis, providers(), new Date(), env.log, only());
    expect((await row(old.id)).status).toBe('Complete');
  });

  test('a paid one is completed (with its receipt number), a failed one left Unpaid, a running one left alone; once', async () => {
    const paid = await started(STALE_START_AFTER_MS + 60_000);
    const declined = await started(STALE_START_AFTER_MS + 60_000);
    const running = await started(STALE_START_AFTER_MS + 60_000);
    await sim.complete(paid.key);
    await sim.decline(declined.key);
    const summary = await sweepStaleStarts(env.handle.db, env.redis, providers(), new Date(), env.log, only());
    expect(summary).toEqual({ merchants: 1, asked: 3, completed: 1, errors: 0, discarded: 0 });
    expect((await row(paid.id)).status).toBe('Complete');
    expect((await row(paid.id)).receipt_no).not.toBeNull();
    expect(await row(declined.id)).toEqual({ status: 'Unpaid', receipt_no: null });
    expect(await row(running.id)).toEqual({ status: 'Awaiting Payment', receipt_no: null });
    const captures = await tdb.selectFrom('transaction_steps').select('step').where('transaction_id', '=', paid.id).where('step', '=', 'capture').execute();
    expect(captures.length).toBe(1);
    // The one still running is not asked again at once; once that time has passed, only it is.
    expect(await sweepStaleStarts(env.handle.db, env.redis, providers(), new Date(), env.log, only())).toEqual({ merchants: 1, asked: 0, completed: 0, errors: 0, discarded: 0 });
    await forgetAsked();
    const again = await sweepStaleStarts(env.handle.db, env.redis, providers(), new Date(), env.log, only());
    expect(again).toEqual({ merchants: 1, asked: 1, completed: 0, errors: 0, discarded: 0 });
    // Paid later: a later sweep completes it.
    await sim.complete(running.key);
    await forgetAsked();
    expect(await sweepStaleStarts(env.handle.db, env.redis, providers(), new Date(), env.log, only())).toEqual({ merchants: 1, asked: 1, completed: 1, errors: 0, discarded: 0 });
    expect((await row(running.id)).status).toBe('Complete');
  });

  test('a provider that cannot be asked is counted and the others are still settled', async () => {
    const paid = await started(STALE_START_AFTER_MS + 60_000);
    await sim.complete(paid.key);
    const away = paymentProvidersFromEnv({ CARD_B_BASE_URL: 'http://127.0.0.1:9', ...CREDS });
    const down = await sweepStaleStarts(env.handle.db, env.redis, away, new Date(), env.log, only());
    expect(down.errors).toBeGreaterThanOrEqual(1);
    expect((await row(paid.id)).status).toBe('Awaiting Payment');
    const up = await sweepStaleStarts(env.handle.db, env.redis, providers(), new Date(), env.log, only());
    expect(up.completed).toBe(1);
    expect((await row(paid.id)).status).toBe('Complete');
  });
  test('starts still running do not hide a newer paid one: each sweep pages past the ones it asked lately', async () => {
    const running = [];
    for (let i = 0; i < 5; i++) running.push(await started(STALE_START_AFTER_MS + 600_000 - i * 1000));
    const paid = await started(STALE_START_AFTER_MS + 60_000);
    await sim.complete(paid.key);
    const sweeps = [];
    for (let i = 0; i < 3; i++) sweeps.push(await sweepStaleStarts(env.handle.db, env.redis, providers(), new Date(), env.log, only({ limit: 2 })));
    expect(sweeps).toEqual([
      { merchants: 1, asked: 2, completed: 0, errors: 0, discarded: 0 },
      { merchants: 1, asked: 2, completed: 0, errors: 0, discarded: 0 },
      { merchants: 1, asked: 2, completed: 1, errors: 0, discarded: 0 },
    ]);
    expect((await row(paid.id)).status).toBe('Complete');
    for (const r of running) await sim.complete(r.key);
    await forgetAsked();
    await sweepStaleStarts(env.handle.db, env.redis, providers(), new Date(), env.log, only());
  });
  test('a platform-a online card attempt whose answer was lost is not sent again by the sweep (it may never have reached the provider: the customer was told it failed); one already answered is read by its payment', async () => {
    const item = m.items[0]!;
    const at = new Date(Date.now() - STALE_START_AFTER_MS - 60_000);
    const client = new PlatformAClient({ baseUrl: pa.url, accessToken: 'stale-pa' });
    const insert = (id: string, snapshot: Record<string, unknown>) => {
      const key = `idemp_online_${id}`;
      return tdb
        .insertInto('transactions')
        .values({ id, location_id: m.locations[0]!.id, device_id: null, channel: 'online_ordering', order_no: ++orderNo, status: 'Awaiting Payment', order_status: null, payment_provider: 'platform-a', payment_snapshot: JSON.stringify(snapshot), idempotency_key: key, all_idempotency_keys: [key], receipt_no: null, subtotal: item.unit_price, discount: 0, vat: 0, total: item.unit_price, by_vat_rate: JSON.stringify([]), offers: JSON.stringify([]), menu_version: 1, customer_id: null, loyalty_token: null, cart_session_id: null, created_at: at, updated_at: at })
        .execute();
    };
    const lostId = Bun.randomUUIDv7();
    await insert(lostId, { provider: 'platform-a', platform_location_id: 'PA-LOC', platform_a_attempt: { key: `pa-${crypto.randomUUID()}`, source_id: 'cnon:card-nonce-ok' } });
    const paidId = Bun.randomUUIDv7();
    const charged = await client.createPayment({ idempotencyKey: crypto.randomUUID(), sourceId: 'cnon:card-nonce-ok', amount: item.unit_price, currency: 'EUR', referenceId: paidId, locationId: 'PA-LOC' });
    await insert(paidId, { provider: 'platform-a', platform_location_id: 'PA-LOC', payment_id: charged.id });
    expect(await sweepStaleStarts(env.handle.db, env.redis, providers(), new Date(), env.log, only())).toMatchObject({ asked: 2, completed: 1, errors: 0 });
    expect((await row(paidId)).status).toBe('Complete');
    expect((await row(lostId)).status).toBe('Awaiting Payment');
    expect(pa.paymentsFor(lostId)).toEqual([]);
  });

  test('a card-a online order left Unpaid by a declined card is completed when another card paid the same intent and every webhook was lost; Unpaid kiosk and platform-a orders are not asked', async () => {
    const deps = { db: env.handle.db, redis: env.redis, providers: providers(), log: env.log, now: () => new Date() };
    const online = await createOnlinePayment(deps, m.online_ordering.slug, m.online_ordering.location_id, { lines: [{ item_id: m.items[0]!.id, qty: 1 }] });
    const intent = online.payment as { id: string; client_secret: string };
    await cardA.declineIntent(intent.id, intent.client_secret);
    const kiosk = await started(0);
    await sim.decline(kiosk.key);
    // Both failures are learnt by asking (their webhooks lost): both orders Unpaid.
    const later = () => new Date(Date.now() + STALE_START_AFTER_MS + 60_000);
    await sweepStaleStarts(env.handle.db, env.redis, providers(), later(), env.log, only());
    expect((await row(online.transaction_id)).status).toBe('Unpaid');
    expect((await row(kiosk.id)).status).toBe('Unpaid');
    // A platform-a online order that failed: its next card would come through payment/process.
    const paId = Bun.randomUUIDv7();
    const item = m.items[0]!;
    await tdb
      .insertInto('transactions')
      .values({ id: paId, location_id: m.locations[0]!.id, device_id: null, channel: 'online_ordering', order_no: ++orderNo, status: 'Unpaid', order_status: null, payment_provider: 'card-a', payment_snapshot: JSON.stringify({ provider: 'platform-a', platform_location_id: 'PA-LOC' }), idempotency_key: `idemp_online_${paId}`, all_idempotency_keys: [`idemp_online_${paId}`], receipt_no: null, subtotal: item.unit_price, discount: 0, vat: 0, total: item.unit_price, by_vat_rate: JSON.stringify([]), offers: JSON.stringify([]), menu_version: 1, customer_id: null, loyalty_token: null, cart_session_id: null, created_at: new Date(), updated_at: new Date() })
      .execute();
    const found = (await findStaleStarts(tdb, later())).map((r) => r.id);
    expect(found).toContain(online.transaction_id);
    expect(found).not.toContain(kiosk.id);
    expect(found).not.toContain(paId);

    // The customer's second card pays the same intent at card-a; that webhook is lost too.
    await cardA.confirmIntent(intent.id, intent.client_secret);
    await forgetAsked();
    // (The earlier test's platform-a attempt is still waiting, and asked too.)
    expect(await sweepStaleStarts(env.handle.db, env.redis, providers(), later(), env.log, only())).toMatchObject({ completed: 1, errors: 0 });
    expect((await row(online.transaction_id)).status).toBe('Complete');
    expect((await row(online.transaction_id)).receipt_no).not.toBeNull();
    expect((await row(kiosk.id)).status).toBe('Unpaid');
  });
});

describe('storefront orders left Pending (their payment never started, nobody retried)', () => {
  /** An online (or table) order as the storefront stores it before starting its payment, `ageMs` old. */
  async function pending(ageMs: number, opts: { provider?: 'card-a' | 'card-b' | 'platform-a'; channel?: 'online_ordering' | 'table_qr' | 'kiosk'; free?: boolean } = {}): Promise<string> {
    const id = Bun.randomUUIDv7();
    const item = m.items[0]!;
    const at = new Date(Date.now() - ageMs);
    const provider = opts.provider ?? 'card-a';
    await tdb
      .insertInto('transactions')
      .values({ id, location_id: m.locations[0]!.id, device_id: null, channel: opts.channel ?? 'online_ordering', order_no: ++orderNo, status: 'Pending', order_status: null, payment_provider: provider, payment_snapshot: JSON.stringify(opts.free ? { idempotency_key: `oo_${id}`, id: `free_${id}`, is_free: true } : { provider, idempotency_key: `oo_${id}` }), idempotency_key: `oo_${id}`, all_idempotency_keys: [`oo_${id}`], receipt_no: null, subtotal: item.unit_price, discount: 0, vat: 0, total: item.unit_price, by_vat_rate: JSON.stringify([]), offers: JSON.stringify([]), menu_version: 1, customer_id: null, loyalty_token: null, cart_session_id: null, created_at: at, updated_at: at } as never)
      .execute();
    await tdb.insertInto('transaction_lines').values({ transaction_id: id, position: 0, item_id: item.id, category_id: null, name: item.name, qty: 1, unit_price: item.unit_price, vat_rate: item.vat_rate, gross: item.unit_price, discount: 0, total: item.unit_price, modifiers: JSON.stringify([]), variant: null }).execute();
    return id;
  }
  const exists = async (id: string) => (await tdb.selectFrom('transactions').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;

  test('card-a and card-b ones past half an hour are discarded with their lines; younger ones, platform-a ones (charged by the start itself) and one a retry is resuming stay', async () => {
    const old = ORPHANED_PENDING_AFTER_MS + 60_000;
    const cardA = await pending(old);
    const cardB = await pending(old, { provider: 'card-b', channel: 'table_qr' });
    const young = await pending(ORPHANED_PENDING_AFTER_MS - 60_000);
    const platformA = await pending(old, { provider: 'platform-a' });
    const resuming = await pending(old);
    // A retry with the order's key is starting its payment right now (it holds the start lock).
    await env.redis.set(`payment_start_${resuming}`, 'a-retry', 'PX', 30_000);
    try {
      const summary = await sweepStaleStarts(env.handle.db, env.redis, providers(), new Date(), env.log, only());
      expect(summary.discarded).toBe(2);
    } finally {
      await env.redis.del(`payment_start_${resuming}`);
    }
    expect([await exists(cardA), await exists(cardB)]).toEqual([false, false]);
    expect(await tdb.selectFrom('transaction_lines').select('transaction_id').where('transaction_id', 'in', [cardA, cardB]).execute()).toEqual([]);
    expect([await exists(young), await exists(platformA), await exists(resuming)]).toEqual([true, true, true]);
    // Once the retry let go (and the order is still Pending), the next sweep takes it.
    expect((await sweepStaleStarts(env.handle.db, env.redis, providers(), new Date(), env.log, only())).discarded).toBe(1);
    expect(await exists(resuming)).toBe(false);
  });

  test('a free or test-mode order left Pending (its start answered `is_free`; the capture that follows was lost) is completed, not discarded; a younger one is left to its capture', async () => {
    const free = await pending(ORPHANED_PENDING_AFTER_MS + 60_000, { free: true });
    const fresh = await pending(FREE_CAPTURE_AFTER_MS - 30_000, { free: true });
    const summary = await sweepStaleStarts(env.handle.db, env.redis, providers(), new Date(), env.log, only());
    expect(summary).toMatchObject({ discarded: 0, completed: 1, errors: 0 });
    // Before: Pending for good, with no receipt number, kitchen document or register dispatch.
    expect(await row(free)).toMatchObject({ status: 'Complete', receipt_no: expect.any(Number) });
    expect((await row(fresh)).status).toBe('Pending');
    expect((await sweepStaleStarts(env.handle.db, env.redis, providers(), new Date(), env.log, only())).completed).toBe(0);
  });
});
