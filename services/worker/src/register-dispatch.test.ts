import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { seedDemo, type DemoSeedResult } from '@pos/core/seed/demo-seed';
import { paymentProvidersFromEnv } from '@pos/core/payments/payment-providers';
import { dispatchOrdersToRegister, dispatchOrderToRegister } from '@pos/core/payments/post-capture';
import { ALREADY_SYNCED, retryRegisterSync } from '@pos/core/payments/transaction-actions';
import { loadTransaction, registerSyncOf } from '@pos/core/payments/transaction-records';
import { NO_REGISTER, registerDispatchFromEnv, type RegisterDispatchDeps } from '@pos/core/integrations/dispatch-register';
import { saveRegisterAToken, selectRegisterAStore, verifyRegisterAOrders, type RegisterAAdminDeps } from '@pos/core/integrations/register-a-admin';
import { parseTokenKey } from '@pos/core/integrations/token-crypto';
import { startCardBSimulator, type CardBSimulator } from '@pos/providers/payments';
import { OMM_LICENCE_MESSAGE, startRegisterASimulator, type RegisterASimulator, type SimSetup } from '@pos/providers/register-a/register-a-simulator';
import { stopWorker, type RunningWorker } from './worker.ts';
import { systemClock } from '@pos/kernel';
import { createPaymentBatchHandlers } from './jobs/payments.handlers.ts';
import { devLogDriver } from './notifications/driver.ts';
import { captureKioskOrder as captureOrder, dispatchStep as stepOf, startDispatchWorker } from './register-dispatch.test-support.ts';
import { dropPrefix, openTestEnv, uniquePrefix, waitFor, type TestEnv } from './test-support.ts';

/**
 * Order dispatch (issue 17 item 3) through the real worker: a kiosk order captured over card-b (simulator)
 * is pushed by `order.dispatch` to the location's register-a store (simulator over HTTP), once, in major
 * units, whatever the number of runs; refusals are final, an unreachable register is retried.
 */
const KEY_HEX = 'ab'.repeat(32);
let env: TestEnv;
let cardB: CardBSimulator;
let regA: RegisterASimulator;
let worker: RunningWorker;
let m: DemoSeedResult;
let tdb: TenantDb;
let setup: SimSetup;
const prefix = uniquePrefix();
const providers = () => paymentProvidersFromEnv({ CARD_B_BASE_URL: cardB.url, CARD_B_CLIENT_ID: 'rd', CARD_B_CLIENT_SECRET: 'rd-secret-1' });
const registers = () => registerDispatchFromEnv(env.handle.db, { REGISTER_A_BASE_URL: regA.url, INTEGRATION_TOKEN_KEY: KEY_HEX });
const admin = (): RegisterAAdminDeps => ({ central: env.handle.db, tdb, merchantId: m.merchant.id, config: { baseUrl: regA.url, tokenKey: parseTokenKey(KEY_HEX)! }, now: () => new Date() });

beforeAll(async () => {
  env = await openTestEnv();
  cardB = startCardBSimulator({ clientId: 'rd', clientSecret: 'rd-secret-1' });
  regA = startRegisterASimulator({ keys: { prod: 'prod-key-rd', staging: 'staging-key-rd' } });
  m = await seedDemo(env.handle.db, { slug: `rd-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: 'k'.repeat(20), pinPepper: 'p'.repeat(20) });
  tdb = bindTenant(env.handle.db, m.merchant.tenant_database);
  setup = regA.setup();
  await saveRegisterAToken(admin(), m.locations[0]!.id, setup.token, 'enable');
  await selectRegisterAStore(admin(), m.locations[0]!.id, setup.storeIds[0]!);
  worker = await startDispatchWorker(env, prefix, providers(), registers());
});
afterAll(async () => {
  await stopWorker(worker);
  await dropPrefix(env.redis, prefix);
  await env.handle.db.deleteFrom('integration_connections').where('merchant_id', '=', m.merchant.id).execute();
  await dropMerchant(env.handle.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
  await cardB.stop();
  await regA.stop();
  await env.close();
});

/** 3 espressos and a croissant at the kiosk, captured over card-b; the worker dispatches them. */
const captureKioskOrder = () => captureOrder({ env, tdb, merchant: m, payments: providers(), cardB });

const dispatchStep = (id: string) => stepOf(tdb, id);

describe('order dispatch to register-a', () => {
  test('a captured kiosk order lands once in the store, in major units, even when dispatched again', async () => {
    const id = await captureKioskOrder();
    await waitFor(async () => (await dispatchStep(id))?.outcome === 'synced', 15_000, 'register dispatch');
    const t = await loadTransaction(tdb, id);
    const sync = await registerSyncOf(tdb, id);
    expect(sync.status).toBe('synced');
    const orders = regA.orders(setup.storeIds[0]!);
    expect(orders.length).toBe(1);
    const o = orders[0]!;
    expect(sync.detail).toBe(`register-a order ${o.id}`);
    expect(o.orderId).toBe(id);
    expect(o.orderIsAlreadyPaid).toBe(true);
    expect(o.testOrder).toBe(false);
    expect((o.body.payments as any[])[0].amount).toBe(t.total / 100);
    expect(o.total).toBe(t.total / 100);
    const kitchen = await tdb.selectFrom('kitchen_items').select(['name', 'qty', 'total']).where('transaction_id', '=', id).orderBy('position').execute();
    expect((o.body.items as any[]).map((l) => [l.name, l.quantity, Math.round(l.price * l.quantity * 100)])).toEqual(kitchen.map((k) => [k.name, k.qty, k.total]));

    // The job again, twice: the register answers the same order. `retry-sync` of a synced order is 409.
    const created = regA.ordersCreated;
    await dispatchOrderToRegister(tdb, id, { deps: registers(), tenantDatabase: m.merchant.tenant_database });
    await dispatchOrderToRegister(tdb, id, { deps: registers(), tenantDatabase: m.merchant.tenant_database });
    await expect(retryRegisterSync(tdb, m.merchant.tenant_database, t)).rejects.toMatchObject({ message: ALREADY_SYNCED, reason: 'already_synced' });
    await Bun.sleep(600);
    expect(regA.ordersCreated).toBe(created);
    expect(regA.orders(setup.storeIds[0]!).length).toBe(1);
    expect((await registerSyncOf(tdb, id)).status).toBe('synced');

    // At another register already (the location's register changed since): the job never sends it here.
    await tdb.updateTable('transaction_register_sync').set({ detail: 'register-d order rd-ord-9' }).where('transaction_id', '=', id).execute();
    await dispatchOrderToRegister(tdb, id, { deps: registers(), tenantDatabase: m.merchant.tenant_database });
    expect(regA.ordersCreated).toBe(created);
    expect(await registerSyncOf(tdb, id)).toMatchObject({ status: 'synced', detail: 'register-d order rd-ord-9' });
    // Nor does a run with no register configured any more (one by one, or a batch's statement) unmark it:
    // `retry-sync` would then send it to a second register.
    await dispatchOrderToRegister(tdb, id, { deps: registerDispatchFromEnv(env.handle.db, {}), tenantDatabase: m.merchant.tenant_database });
    const ctx = { db: env.handle.db, log: env.log, clock: systemClock, notifications: devLogDriver(env.log), jobId: 'test-dispatch-none', finalAttempt: true };
    await createPaymentBatchHandlers({ registers: registerDispatchFromEnv(env.handle.db, {}) })['order.dispatch']!([{ tenant_database: m.merchant.tenant_database, transaction_id: id }], ctx);
    expect(await registerSyncOf(tdb, id)).toMatchObject({ status: 'synced', detail: 'register-d order rd-ord-9' });
    // orders/verify leaves it out: it was never meant for register-a (before: listed as missing).
    const elsewhere = await verifyRegisterAOrders(admin(), m.locations[0]!.id);
    expect([...elsewhere.found, ...elsewhere.missing]).not.toContain(id);
    await tdb.updateTable('transaction_register_sync').set({ detail: `register-a order ${o.id}` }).where('transaction_id', '=', id).execute();

    // orders/verify finds it in the store.
    const v = await verifyRegisterAOrders(admin(), m.locations[0]!.id);
    expect(v.found).toContain(id);
    expect(v.missing).toEqual([]);
  });

  test('without an Order Management Module licence the refusal is final and forwarded verbatim', async () => {
    regA.store(setup.storeIds[0]!)!.pos[0]!.ommLicence = false;
    try {
      const id = await captureKioskOrder();
      await waitFor(async () => (await dispatchStep(id))?.outcome === 'failed', 15_000, 'register dispatch refusal');
      expect(await dispatchStep(id)).toEqual({ step: 'register_dispatch', outcome: 'failed', detail: OMM_LICENCE_MESSAGE });
      const t = await registerSyncOf(tdb, id);
      expect([t.status, t.detail]).toEqual(['failed', OMM_LICENCE_MESSAGE]);
      expect(regA.orders(setup.storeIds[0]!).some((o) => o.orderId === id)).toBe(false);
    } finally {
      regA.store(setup.storeIds[0]!)!.pos[0]!.ommLicence = true;
    }
  });

  test('an unreachable register throws (the job retries with backoff) and marks the transaction retrying', async () => {
    const [t] = await tdb.selectFrom('transaction_register_sync').select('transaction_id as id').where('status', '=', 'synced').limit(1).execute();
    const down = registerDispatchFromEnv(env.handle.db, { REGISTER_A_BASE_URL: 'http://127.0.0.1:1', INTEGRATION_TOKEN_KEY: KEY_HEX });
    await expect(dispatchOrderToRegister(tdb, t!.id, { deps: down, tenantDatabase: m.merchant.tenant_database })).rejects.toThrow(/will be retried/);
    expect((await registerSyncOf(tdb, t!.id)).status).toBe('retrying');
    // Once reachable again, the same order is found, not duplicated.
    await dispatchOrderToRegister(tdb, t!.id, { deps: registers(), tenantDatabase: m.merchant.tenant_database });
    expect((await registerSyncOf(tdb, t!.id)).status).toBe('synced');
    expect(regA.orders(setup.storeIds[0]!).filter((o) => o.orderId === t!.id).length).toBe(1);
  });

  test("the dispatch job's last run failing turns a retrying sync into failed (retry-sync), not retrying for ever", async () => {
    const [t] = await tdb.selectFrom('transaction_register_sync').select('transaction_id as id').where('status', '=', 'synced').limit(1).execute();
    const down = registerDispatchFromEnv(env.handle.db, { REGISTER_A_BASE_URL: 'http://127.0.0.1:1', INTEGRATION_TOKEN_KEY: KEY_HEX });
    const dispatch = createPaymentBatchHandlers({ registers: down })['order.dispatch'];
    const ctx = { db: env.handle.db, log: env.log, clock: systemClock, notifications: devLogDriver(env.log), jobId: 'test-dispatch' };
    // A run with retries left: still retrying.
    const [first] = await dispatch([{ tenant_database: m.merchant.tenant_database, transaction_id: t!.id }], { ...ctx, finalAttempt: false });
    expect(first).toBeInstanceOf(Error);
    expect((await registerSyncOf(tdb, t!.id)).status).toBe('retrying');
    // The last run: failed, with the last error.
    const [last] = await dispatch([{ tenant_database: m.merchant.tenant_database, transaction_id: t!.id }], { ...ctx, finalAttempt: true });
    expect(last).toBeInstanceOf(Error);
    const sync = await registerSyncOf(tdb, t!.id);
    expect(sync.status).toBe('failed');
    expect(sync.detail).toStartWith('Retries exhausted: ');
    // retry-sync (or the sweep) dispatches it again once the register is back.
    await dispatchOrderToRegister(tdb, t!.id, { deps: registers(), tenantDatabase: m.merchant.tenant_database });
    expect((await registerSyncOf(tdb, t!.id)).status).toBe('synced');
  });

  test('a location without a register record is recorded as not configured', async () => {
    const other = m.locations[1] ?? null;
    if (!other) return expect(m.locations.length).toBe(1);
    const none = await registerDispatchFromEnv(env.handle.db, { REGISTER_A_BASE_URL: regA.url, INTEGRATION_TOKEN_KEY: KEY_HEX }).dispatchers[0]!.target(m.merchant.tenant_database, other.id);
    expect(none).toBeNull();
  });

  test('a batch asks the register clients once per location: orders of a location with a register are pushed, the others recorded as not configured in one statement', async () => {
    const ids = [await captureKioskOrder(), await captureKioskOrder(), await captureKioskOrder()];
    for (const id of ids) await waitFor(async () => (await dispatchStep(id))?.outcome === 'synced', 15_000, 'register dispatch');
    // The last two moved to the location without a register (a fixture: a kiosk there would have made them).
    await tdb.updateTable('transactions').set({ location_id: m.locations[1]!.id }).where('id', 'in', ids.slice(1)).execute();
    const asked: string[] = [];
    const base = registers();
    const counting: RegisterDispatchDeps = { ...base, dispatchers: base.dispatchers.map((d) => ({ ...d, target: (tenant, location, channel) => (asked.push(location), d.target(tenant, location, channel)) })) };
    const created = regA.ordersCreated;

    const outcomes = await dispatchOrdersToRegister(tdb, ids, { deps: counting, tenantDatabase: m.merchant.tenant_database });
    expect(outcomes).toEqual([null, null, null]);
    // One lookup per location of the batch, then one per order pushed (its dispatch); none per order without a register.
    expect(asked.sort()).toEqual([m.locations[0]!.id, m.locations[0]!.id, m.locations[1]!.id].sort());
    expect(regA.ordersCreated).toBe(created);
    expect((await registerSyncOf(tdb, ids[0]!)).status).toBe('synced');
    // Already at register-a: they stay recorded there (a location without a register now does not unmark them).
    for (const id of ids.slice(1)) expect(await registerSyncOf(tdb, id)).toMatchObject({ status: 'synced', detail: expect.stringMatching(/^register-a order /) });
    // An order never sent anywhere is recorded as not configured in the same statement.
    await tdb.deleteFrom('transaction_register_sync').where('transaction_id', '=', ids[2]!).execute();
    await dispatchOrdersToRegister(tdb, [ids[2]!], { deps: counting, tenantDatabase: m.merchant.tenant_database });
    expect(await registerSyncOf(tdb, ids[2]!)).toEqual({ status: 'not_configured', detail: NO_REGISTER });
  });

  test('a merchant without an active register connection: the batch asks no register client and records every order as not configured', async () => {
    const ids = [await captureKioskOrder(), await captureKioskOrder()];
    for (const id of ids) await waitFor(async () => (await dispatchStep(id))?.outcome === 'synced', 15_000, 'register dispatch');
    const asked: string[] = [];
    const base = registers();
    const counting: RegisterDispatchDeps = { ...base, dispatchers: base.dispatchers.map((d) => ({ ...d, target: (tenant, location, channel) => (asked.push(location), d.target(tenant, location, channel)) })) };
    const connections = () => env.handle.db.updateTable('integration_connections').where('merchant_id', '=', m.merchant.id).where('provider', '=', 'register-a');
    // The store is being chosen again: the merchant's only register connection is not active meanwhile.
    await connections().set({ status: 'pending_store' }).execute();
    try {
      expect(await dispatchOrdersToRegister(tdb, ids, { deps: counting, tenantDatabase: m.merchant.tenant_database })).toEqual([null, null]);
      expect(asked).toEqual([]);
      // Synced already: kept as they were (see above); no client asked.
      for (const id of ids) expect(await registerSyncOf(tdb, id)).toMatchObject({ status: 'synced' });
    } finally {
      await connections().set({ status: 'active' }).execute();
    }
    // Active again: the lookup runs (once for the batch's location, once per order pushed).
    await dispatchOrdersToRegister(tdb, ids, { deps: counting, tenantDatabase: m.merchant.tenant_database });
    expect(asked).toEqual([m.locations[0]!.id, m.locations[0]!.id, m.locations[0]!.id]);
    for (const id of ids) expect((await registerSyncOf(tdb, id)).status).toBe('synced');
  });
});
