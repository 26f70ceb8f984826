import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { seedDemo, type DemoSeedResult } from '@pos/core/seed/demo-seed';
import { paymentProvidersFromEnv } from '@pos/core/payments/payment-providers';
import { dispatchOrderToRegister } from '@pos/core/payments/post-capture';
import { retryRegisterSync } from '@pos/core/payments/transaction-actions';
import { loadTransaction, registerSyncOf } from '@pos/core/payments/transaction-records';
import { registerDispatchFromEnv } from '@pos/core/integrations/dispatch-register';
import { startCardBSimulator, type CardBSimulator } from '@pos/providers/payments';
import { majorOf } from '@pos/providers/register-b/register-b-client';
import { startRegisterBSimulator, type RegisterBSimBranch, type RegisterBSimulator } from '@pos/providers/register-b/register-b-simulator';
import { stopWorker, type RunningWorker } from './worker.ts';
import { captureKioskOrder as captureOrder, dispatchOutcome, dispatchStep as stepOf, startDispatchWorker } from './register-dispatch.test-support.ts';
import { dropPrefix, openTestEnv, uniquePrefix, type TestEnv } from './test-support.ts';

/**
 * Order dispatch to register-b (issue 17 item 3) through the real worker: a kiosk order captured over
 * card-b (simulator) is placed by `order.dispatch` at the register-b branch mapped to its location
 * (simulator over HTTP), under the merchant's register-b account, once whatever the number of runs;
 * register-b's refusals are final, an unavailable register-b is retried.
 */
const PARTNER_TOKEN = 'rbd-partner-token';
const ACCOUNT = `acct-rbd-${crypto.randomUUID().slice(0, 8)}`;
const BRANCH = `${ACCOUNT}-br`;
const NOT_CONFIGURED = 'No register is configured for this location.';

let env: TestEnv;
let cardB: CardBSimulator;
let rb: RegisterBSimulator;
let worker: RunningWorker;
let m: DemoSeedResult;
let tdb: TenantDb;
let loc: string;
let connectionId: string;
const prefix = uniquePrefix();
const providers = () => paymentProvidersFromEnv({ CARD_B_BASE_URL: cardB.url, CARD_B_CLIENT_ID: 'rbd', CARD_B_CLIENT_SECRET: 'rbd-secret-1' });
const registers = () => registerDispatchFromEnv(env.handle.db, { REGISTER_B_API_URL: rb.url, REGISTER_B_API_TOKEN: PARTNER_TOKEN });
const item = (name: string) => m.items.find((i) => i.name === name)!;
const branch = (): RegisterBSimBranch => rb.accounts.get(ACCOUNT)!.branches.get(BRANCH)!;
const ordersOf = (id: string) => [...(branch().orders.values())].filter((o) => o.order_id === id);
const setStatus = (status: 'active' | 'disabled') => env.handle.db.updateTable('integration_connections').set({ status }).where('id', '=', connectionId).execute();
const map = () =>
  env.handle.db
    .insertInto('register_b_mappings')
    .values({ merchant_id: m.merchant.id, location_id: loc, connection_id: connectionId, branch_id: BRANCH, branch_name: 'Centre', created_at: new Date(), updated_at: new Date() })
    .onConflict((oc) => oc.columns(['merchant_id', 'location_id']).doNothing())
    .execute();
const unmap = () => env.handle.db.deleteFrom('register_b_mappings').where('merchant_id', '=', m.merchant.id).where('location_id', '=', loc).execute();

beforeAll(async () => {
  env = await openTestEnv();
  cardB = startCardBSimulator({ clientId: 'rbd', clientSecret: 'rbd-secret-1' });
  rb = startRegisterBSimulator({ apiToken: PARTNER_TOKEN });
  rb.addAccount(ACCOUNT);
  rb.addBranch(ACCOUNT, BRANCH, 'Centre');
  m = await seedDemo(env.handle.db, { slug: `rbd-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: 'k'.repeat(20), pinPepper: 'p'.repeat(20) });
  tdb = bindTenant(env.handle.db, m.merchant.tenant_database);
  loc = m.locations[0]!.id;
  connectionId = Bun.randomUUIDv7();
  const now = new Date();
  await env.handle.db
    .insertInto('integration_connections')
    .values({ id: connectionId, provider: 'register-b', external_ref: ACCOUNT, merchant_id: m.merchant.id, settings: JSON.stringify({}), connected_at: now, created_at: now, updated_at: now })
    .execute();
  await map();
  worker = await startDispatchWorker(env, prefix, providers(), registers());
}, 60_000);
afterAll(async () => {
  await stopWorker(worker);
  await dropPrefix(env.redis, prefix);
  await env.handle.db.deleteFrom('register_b_mappings').where('merchant_id', '=', m.merchant.id).execute();
  await env.handle.db.deleteFrom('integration_connections').where('merchant_id', '=', m.merchant.id).execute();
  await dropMerchant(env.handle.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
  await cardB.stop();
  await rb.stop();
  await env.close();
});

/** 3 espressos and a croissant at the kiosk, captured over card-b; the worker dispatches them. */
const captureKioskOrder = () => captureOrder({ env, tdb, merchant: m, payments: providers(), cardB });

const dispatchStep = (id: string) => stepOf(tdb, id);
const settled = (id: string) => dispatchOutcome(tdb, id);
const notConfigured = { step: { step: 'register_dispatch', outcome: 'not_configured', detail: NOT_CONFIGURED }, pos: ['not_configured', NOT_CONFIGURED] };

describe('order dispatch to register-b', () => {
  test("a captured kiosk order is placed once at the location's branch, in major units, even when dispatched again", async () => {
    const id = await captureKioskOrder();
    const { step, pos } = await settled(id);
    const [order] = ordersOf(id);
    expect(step).toEqual({ step: 'register_dispatch', outcome: 'synced', detail: `register-b order ${order!.id}` });
    expect(pos).toEqual(['synced', `register-b order ${order!.id}`]);
    const t = await loadTransaction(tdb, id);
    const espresso = item('Espresso').unit_price;
    const croissant = item('Croissant').unit_price;
    expect(t.total).toBe(3 * espresso + croissant + t.tip_amount + t.fees);
    expect(ordersOf(id)).toEqual([
      {
        id: order!.id,
        order_id: id,
        branch_id: BRANCH,
        channel: 'kiosk',
        customer_name: t.customer_name,
        lines: [
          { name: 'Espresso', quantity: 3, unit_price: majorOf(espresso), line_total: majorOf(3 * espresso) },
          { name: 'Croissant', quantity: 1, unit_price: majorOf(croissant), line_total: majorOf(croissant) },
        ],
        subtotal: majorOf(3 * espresso + croissant),
        discount: '0.00',
        tip: majorOf(t.tip_amount),
        service_charge: majorOf(t.fees),
        total: majorOf(t.total),
        created_at: expect.any(String),
      },
    ]);

    // The job again, twice, and `retry-sync`: register-b answers the order already placed.
    await dispatchOrderToRegister(tdb, id, { deps: registers(), tenantDatabase: m.merchant.tenant_database });
    await dispatchOrderToRegister(tdb, id, { deps: registers(), tenantDatabase: m.merchant.tenant_database });
    // `retry-sync` of an order already at its register is refused (409 already_synced): nothing sent.
    await expect(retryRegisterSync(tdb, m.merchant.tenant_database, t)).rejects.toMatchObject({ reason: 'already_synced' });
    await Bun.sleep(600);
    expect(ordersOf(id).map((o) => o.id)).toEqual([order!.id]);
    expect(branch().orders.size).toBe(1);
    expect(await registerSyncOf(tdb, id)).toEqual({ status: 'synced', detail: `register-b order ${order!.id}` });
  });

  test('an order cancelled after it was paid (a marketplace cancelling) is not placed, by the job or a retry-sync', async () => {
    await unmap();
    let id: string;
    try {
      id = await captureKioskOrder();
      expect(await settled(id)).toEqual(notConfigured);
    } finally {
      await map();
    }
    await tdb.updateTable('transactions').set({ order_status: 'Cancelled' }).where('id', '=', id).execute();
    const skipped = 'The order was cancelled after it was paid: it is not sent to the register.';
    // Before: the dispatch (a sweep's re-drive, a retry-sync) placed it at the branch as a paid sale.
    await dispatchOrderToRegister(tdb, id, { deps: registers(), tenantDatabase: m.merchant.tenant_database });
    await retryRegisterSync(tdb, m.merchant.tenant_database, await loadTransaction(tdb, id)).catch(() => undefined);
    expect(ordersOf(id)).toEqual([]);
    expect(await dispatchStep(id)).toEqual({ step: 'register_dispatch', outcome: 'skipped', detail: skipped });
    expect(await registerSyncOf(tdb, id)).toEqual({ status: 'skipped', detail: skipped });
  });

  test('an unmapped location, a disabled connection or none at all: not configured, nothing placed', async () => {
    const before = branch().orders.size;
    await unmap();
    try {
      const id = await captureKioskOrder();
      expect(await settled(id)).toEqual(notConfigured);
    } finally {
      await map();
    }
    await setStatus('disabled');
    try {
      const id = await captureKioskOrder();
      expect(await settled(id)).toEqual(notConfigured);
    } finally {
      await setStatus('active');
    }
    expect(branch().orders.size).toBe(before);

    const d = registers().dispatchers[0]!;
    expect(d.provider).toBe('register-b');
    const tenant = m.merchant.tenant_database;
    expect(await d.target(tenant, loc, 'kiosk')).not.toBeNull();
    // The second location has no mapping; another tenant database is a merchant without register-b.
    expect(await d.target(tenant, m.locations[1]!.id, 'kiosk')).toBeNull();
    expect(await d.target('tenant_nobody', loc, 'kiosk')).toBeNull();
    // Without its API address or partner token, no register-b dispatcher is configured.
    expect(registerDispatchFromEnv(env.handle.db, { REGISTER_B_API_URL: rb.url }).dispatchers).toEqual([]);
    expect(registerDispatchFromEnv(env.handle.db, { REGISTER_B_API_TOKEN: PARTNER_TOKEN }).dispatchers).toEqual([]);
  });

  test('register-b down (503), unreachable or refusing our partner token: the job throws (retried), then the order is placed once', async () => {
    const id = await captureKioskOrder();
    await settled(id);
    const placed = ordersOf(id)[0]!.id;
    await tdb.deleteFrom('transaction_register_sync').where('transaction_id', '=', id).execute();
    rb.failWith(503);
    try {
      await expect(dispatchOrderToRegister(tdb, id, { deps: registers(), tenantDatabase: m.merchant.tenant_database })).rejects.toThrow(`register dispatch of ${id} will be retried: register-b: register-b is unavailable`);
      expect(await registerSyncOf(tdb, id)).toEqual({ status: 'retrying', detail: 'register-b: register-b is unavailable' });
    } finally {
      rb.failWith(null);
    }
    const down = registerDispatchFromEnv(env.handle.db, { REGISTER_B_API_URL: 'http://127.0.0.1:1', REGISTER_B_API_TOKEN: PARTNER_TOKEN });
    await expect(dispatchOrderToRegister(tdb, id, { deps: down, tenantDatabase: m.merchant.tenant_database })).rejects.toThrow(/will be retried/);
    const wrongToken = registerDispatchFromEnv(env.handle.db, { REGISTER_B_API_URL: rb.url, REGISTER_B_API_TOKEN: 'not-the-partner-token' });
    await expect(dispatchOrderToRegister(tdb, id, { deps: wrongToken, tenantDatabase: m.merchant.tenant_database })).rejects.toThrow('will be retried: register-b: Invalid partner token');
    expect((await registerSyncOf(tdb, id)).status).toBe('retrying');
    // Reachable again: the order the first run placed.
    await dispatchOrderToRegister(tdb, id, { deps: registers(), tenantDatabase: m.merchant.tenant_database });
    expect(await registerSyncOf(tdb, id)).toEqual({ status: 'synced', detail: `register-b order ${placed}` });
    expect(ordersOf(id).map((o) => o.id)).toEqual([placed]);
  });

  test('the branch gone at register-b (404) fails for good with its message', async () => {
    const account = rb.accounts.get(ACCOUNT)!;
    const saved = branch();
    account.branches.delete(BRANCH);
    try {
      const id = await captureKioskOrder();
      const detail = 'register-b: Branch not found';
      expect(await settled(id)).toEqual({ step: { step: 'register_dispatch', outcome: 'failed', detail }, pos: ['failed', detail] });
      expect([...saved.orders.values()].filter((o) => o.order_id === id)).toEqual([]);
    } finally {
      account.branches.set(BRANCH, saved);
    }
  });
});
