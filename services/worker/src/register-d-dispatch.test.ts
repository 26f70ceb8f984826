import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { seedDemo, type DemoSeedResult } from '@pos/core/seed/demo-seed';
import { paymentProvidersFromEnv } from '@pos/core/payments/payment-providers';
import { dispatchOrderToRegister } from '@pos/core/payments/post-capture';
import { retryRegisterSync } from '@pos/core/payments/transaction-actions';
import { loadTransaction, registerSyncOf } from '@pos/core/payments/transaction-records';
import { dispatchToRegister, registerDispatchFromEnv } from '@pos/core/integrations/dispatch-register';
import { saveRegisterD } from '@pos/core/integrations/register-d-admin';
import { startCardBSimulator, type CardBSimulator } from '@pos/providers/payments';
import { RegisterDClient } from '@pos/providers/register-d/register-d-client';
import { startRegisterDSimulator, type RegisterDSimSite, type RegisterDSimulator } from '@pos/providers/register-d/register-d-simulator';
import { stopWorker, type RunningWorker } from './worker.ts';
import { captureKioskOrder as captureOrder, dispatchOutcome, dispatchStep as stepOf, startDispatchWorker } from './register-dispatch.test-support.ts';
import { dropPrefix, openTestEnv, uniquePrefix, waitFor, type TestEnv } from './test-support.ts';

/**
 * Order dispatch to register-d (issue 17 item 3) through the real worker: a kiosk order captured over
 * card-b (simulator) is sent by `order.dispatch` through the register-d transport (simulator over
 * HTTP) to the site of the location's active `register-d:<vendor>` connection, in cents, once whatever
 * the number of runs; a site unlinked at the transport is final, a transport down is retried.
 */
const TOKEN = `tok-rdd-${crypto.randomUUID().slice(0, 8)}`;
const SITE = `rdd-${crypto.randomUUID().slice(0, 8)}`;
const NOT_CONFIGURED = 'No register is configured for this location.';

let env: TestEnv;
let cardB: CardBSimulator;
let sim: RegisterDSimulator;
let worker: RunningWorker;
let m: DemoSeedResult;
let tdb: TenantDb;
let loc: string;
const prefix = uniquePrefix();
const providers = () => paymentProvidersFromEnv({ CARD_B_BASE_URL: cardB.url, CARD_B_CLIENT_ID: 'rdd', CARD_B_CLIENT_SECRET: 'rdd-secret-1' });
const registers = () => registerDispatchFromEnv(env.handle.db, { REGISTER_D_API_URL: sim.url, REGISTER_D_API_TOKEN: TOKEN, REGISTER_D_VENDORS: 'vendor-a,vendor-b' });
const item = (name: string) => m.items.find((i) => i.name === name)!;
const site = (): RegisterDSimSite => sim.site('vendor-b', SITE)!;
const ordersOf = (id: string) => site().orders.filter((o) => o.order_id === id);

beforeAll(async () => {
  env = await openTestEnv();
  cardB = startCardBSimulator({ clientId: 'rdd', clientSecret: 'rdd-secret-1' });
  sim = startRegisterDSimulator({ apiToken: TOKEN });
  sim.addSite('vendor-b', SITE, 'Till');
  m = await seedDemo(env.handle.db, { slug: `rdd-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: 'k'.repeat(20), pinPepper: 'p'.repeat(20) });
  tdb = bindTenant(env.handle.db, m.merchant.tenant_database);
  loc = m.locations[0]!.id;
  // Connected as the back office does it: the site checked and linked to our location at the transport.
  const client = new RegisterDClient({ baseUrl: sim.url, apiToken: TOKEN });
  await saveRegisterD(env.handle.db, () => client, { merchant: { id: m.merchant.id, tenant_database: m.merchant.tenant_database }, locationId: loc, vendor: 'vendor-b' }, { site_id: SITE, link_code: sim.site('vendor-b', SITE)!.linkCode }, new Date());
  worker = await startDispatchWorker(env, prefix, providers(), registers());
}, 60_000);
afterAll(async () => {
  await stopWorker(worker);
  await dropPrefix(env.redis, prefix);
  await env.handle.db.deleteFrom('integration_events').where('merchant_id', '=', m.merchant.id).execute();
  await env.handle.db.deleteFrom('integration_connections').where('merchant_id', '=', m.merchant.id).execute();
  await dropMerchant(env.handle.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
  await cardB.stop();
  await sim.stop();
  await env.close();
});

const setConnection = (status: 'active' | 'disabled') =>
  env.handle.db.updateTable('integration_connections').set({ status }).where('merchant_id', '=', m.merchant.id).where('provider', '=', 'register-d:vendor-b').execute();

/** 3 espressos and a croissant at the kiosk, captured over card-b; the worker dispatches them. */
const captureKioskOrder = () => captureOrder({ env, tdb, merchant: m, payments: providers(), cardB }, 100);

const dispatchStep = (id: string) => stepOf(tdb, id);
const settled = (id: string) => dispatchOutcome(tdb, id);

describe('order dispatch to register-d', () => {
  test('a captured kiosk order reaches the site once, in cents, even when dispatched again', async () => {
    const id = await captureKioskOrder();
    const { step, pos } = await settled(id);
    const [order] = ordersOf(id);
    expect(step).toEqual({ step: 'register_dispatch', outcome: 'synced', detail: `register-d order ${order!.id}` });
    expect(pos).toEqual(['synced', `register-d order ${order!.id}`]);
    const t = await loadTransaction(tdb, id);
    const subtotal = 3 * item('Espresso').unit_price + item('Croissant').unit_price;
    expect(t.total).toBe(subtotal + 100);
    expect(ordersOf(id)).toEqual([
      {
        id: order!.id,
        order_id: id,
        vendor: 'vendor-b',
        site_id: SITE,
        status: 'received',
        channel: 'kiosk',
        customer_name: null,
        lines: [
          { name: 'Espresso', quantity: 3, unit_price: item('Espresso').unit_price },
          { name: 'Croissant', quantity: 1, unit_price: item('Croissant').unit_price },
        ],
        totals: { subtotal, tip: 100, service_charge: 0, discount: 0, total: subtotal + 100 },
        received_at: expect.any(String),
      },
    ]);

    // The job again, twice, and `retry-sync`: the transport answers the same order, nothing new.
    const puts = site().orderPuts;
    await dispatchOrderToRegister(tdb, id, { deps: registers(), tenantDatabase: m.merchant.tenant_database });
    await dispatchOrderToRegister(tdb, id, { deps: registers(), tenantDatabase: m.merchant.tenant_database });
    // `retry-sync` of an order already at its register is refused (409 already_synced): nothing sent.
    await expect(retryRegisterSync(tdb, m.merchant.tenant_database, t)).rejects.toMatchObject({ reason: 'already_synced' });
    expect(site().orderPuts).toBe(puts + 2);
    expect(site().orders.filter((o) => o.order_id === id)).toEqual([order!]);
    expect(await registerSyncOf(tdb, id)).toEqual({ status: 'synced', detail: `register-d order ${order!.id}` });
  });

  test('no active register-d connection at the location: not configured, nothing sent', async () => {
    await setConnection('disabled');
    const puts = site().orderPuts;
    try {
      const id = await captureKioskOrder();
      expect(await settled(id)).toEqual({ step: { step: 'register_dispatch', outcome: 'not_configured', detail: NOT_CONFIGURED }, pos: ['not_configured', NOT_CONFIGURED] });
      expect(site().orderPuts).toBe(puts);
    } finally {
      await setConnection('active');
    }
    const d = registers().dispatchers[0]!;
    expect(d.provider).toBe('register-d');
    const tenant = m.merchant.tenant_database;
    expect(await d.target(tenant, loc, 'kiosk')).not.toBeNull();
    expect(await d.target(tenant, loc, 'online_ordering')).not.toBeNull();
    // Another location of the merchant, another merchant's tenant, a marketplace delivery: nothing.
    expect(await d.target(tenant, m.locations[1]!.id, 'kiosk')).toBeNull();
    expect(await d.target('tenant_nobody', loc, 'kiosk')).toBeNull();
    expect(await d.target(tenant, loc, 'delivery')).toBeNull();
    // A vendor no longer configured is not used.
    const onlyA = registerDispatchFromEnv(env.handle.db, { REGISTER_D_API_URL: sim.url, REGISTER_D_API_TOKEN: TOKEN, REGISTER_D_VENDORS: 'vendor-a' });
    expect(await onlyA.dispatchers[0]!.target(tenant, loc, 'kiosk')).toBeNull();
    // Without the transport address or its token, no register-d dispatcher.
    expect(registerDispatchFromEnv(env.handle.db, { REGISTER_D_API_URL: sim.url }).dispatchers).toEqual([]);
    expect(registerDispatchFromEnv(env.handle.db, { REGISTER_D_API_TOKEN: TOKEN }).dispatchers).toEqual([]);
  });

  test('the transport down (503) or unreachable: the job throws (retried with backoff), then the order goes once', async () => {
    // Captured with the transport down: the worker's own runs are retried, nothing reaches the site.
    sim.failWith = 503;
    let id: string;
    try {
      id = await captureKioskOrder();
      await waitFor(async () => (await registerSyncOf(tdb, id)).status === 'retrying', 15_000, 'retrying');
      await expect(dispatchOrderToRegister(tdb, id, { deps: registers(), tenantDatabase: m.merchant.tenant_database })).rejects.toThrow(
        `register dispatch of ${id} will be retried: register-d: The vendor behind the transport is not answering`,
      );
      expect(await registerSyncOf(tdb, id)).toEqual({ status: 'retrying', detail: 'register-d: The vendor behind the transport is not answering' });
      expect(await dispatchStep(id)).toBeUndefined();
      expect(ordersOf(id)).toEqual([]);
    } finally {
      sim.failWith = null;
    }
    const down = registerDispatchFromEnv(env.handle.db, { REGISTER_D_API_URL: 'http://127.0.0.1:1', REGISTER_D_API_TOKEN: TOKEN });
    await expect(dispatchOrderToRegister(tdb, id, { deps: down, tenantDatabase: m.merchant.tenant_database })).rejects.toThrow(/will be retried/);
    // A refused token of ours is retried too: it clears once the configuration is fixed.
    const wrongToken = registerDispatchFromEnv(env.handle.db, { REGISTER_D_API_URL: sim.url, REGISTER_D_API_TOKEN: 'not-the-token' });
    await expect(dispatchOrderToRegister(tdb, id, { deps: wrongToken, tenantDatabase: m.merchant.tenant_database })).rejects.toThrow('will be retried: register-d: Invalid credentials');
    // Reachable again (the worker's backoff or this run, whichever first): the order once.
    await dispatchOrderToRegister(tdb, id, { deps: registers(), tenantDatabase: m.merchant.tenant_database });
    const [order] = ordersOf(id);
    expect(ordersOf(id)).toHaveLength(1);
    expect(await registerSyncOf(tdb, id)).toEqual({ status: 'synced', detail: `register-d order ${order!.id}` });
  });

  test('the site unlinked at the transport: failed for good with its message, nothing received', async () => {
    site().linkedRef = null;
    try {
      const id = await captureKioskOrder();
      const detail = 'register-d: The site is not linked';
      expect(await settled(id)).toEqual({ step: { step: 'register_dispatch', outcome: 'failed', detail }, pos: ['failed', detail] });
      expect(ordersOf(id)).toEqual([]);
      // Run directly: the same final outcome, not a retry.
      expect(await dispatchToRegister(registers(), tdb, m.merchant.tenant_database, await loadTransaction(tdb, id))).toEqual({ status: 'failed', provider: 'register-d', detail });
    } finally {
      site().linkedRef = loc;
    }
  });
});
