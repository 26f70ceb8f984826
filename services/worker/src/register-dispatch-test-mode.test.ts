import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { seedDemo, type DemoSeedResult } from '@pos/core/seed/demo-seed';
import { paymentProvidersFromEnv } from '@pos/core/payments/payment-providers';
import { dispatchOrderToRegister, listSteps } from '@pos/core/payments/post-capture';
import { registerDispatchFromEnv, type RegisterDispatchDeps } from '@pos/core/integrations/dispatch-register';
import { registerSyncOf } from '@pos/core/payments/transaction-records';
import { saveRegisterAToken, selectRegisterAStore, type RegisterAAdminDeps } from '@pos/core/integrations/register-a-admin';
import { parseTokenKey } from '@pos/core/integrations/token-crypto';
import { startCardBSimulator, type CardBSimulator } from '@pos/providers/payments';
import { startRegisterASimulator, type RegisterASimulator, type SimSetup } from '@pos/providers/register-a/register-a-simulator';
import { captureKioskOrder as captureOrder, startDispatchWorker } from './register-dispatch.test-support.ts';
import { stopWorker, type RunningWorker } from './worker.ts';
import { dropPrefix, openTestEnv, uniquePrefix, waitFor, type TestEnv } from './test-support.ts';

/**
 * A transaction captured in payment test mode (`is_test`: no money was taken) must not become a fiscal
 * sale at the register. Spec 3 "Register-a order
 * lifecycles": "A real order (`testOrder` false) becomes fiscally final only when staff tap Process
 * order ... A test order (`testOrder` true) cannot be finalised." register-a takes it as a test order;
 * a register without test orders (register-b/-c/-d) is not sent it (docs/decisions.md).
 */
const KEY_HEX = 'ab'.repeat(32);
let env: TestEnv;
let cardB: CardBSimulator;
let regA: RegisterASimulator;
let m: DemoSeedResult;
let tdb: TenantDb;
let setup: SimSetup;
let worker: RunningWorker;
const prefix = uniquePrefix();
const providers = () => paymentProvidersFromEnv({ CARD_B_BASE_URL: cardB.url, CARD_B_CLIENT_ID: 'rd', CARD_B_CLIENT_SECRET: 'rd-secret-1' });
const registers = () => registerDispatchFromEnv(env.handle.db, { REGISTER_A_BASE_URL: regA.url, INTEGRATION_TOKEN_KEY: KEY_HEX });
const admin = (): RegisterAAdminDeps => ({ central: env.handle.db, tdb, merchantId: m.merchant.id, config: { baseUrl: regA.url, tokenKey: parseTokenKey(KEY_HEX)! }, now: () => new Date() });

beforeAll(async () => {
  env = await openTestEnv();
  cardB = startCardBSimulator({ clientId: 'rd', clientSecret: 'rd-secret-1' });
  regA = startRegisterASimulator({ keys: { prod: 'prod-key-rd', staging: 'staging-key-rd' } });
  m = await seedDemo(env.handle.db, { slug: `probe-rt-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: 'k'.repeat(20), pinPepper: 'p'.repeat(20) });
  tdb = bindTenant(env.handle.db, m.merchant.tenant_database);
  setup = regA.setup();
  await saveRegisterAToken(admin(), m.locations[0]!.id, setup.token, 'enable');
  await selectRegisterAStore(admin(), m.locations[0]!.id, setup.storeIds[0]!);
  // The worker writes the kitchen documents; its own dispatch has no register configured.
  worker = await startDispatchWorker(env, prefix, providers(), registerDispatchFromEnv(env.handle.db, {}));
}, 60_000);
afterAll(async () => {
  await stopWorker(worker);
  await dropPrefix(env.redis, prefix);
  await env.handle.db.deleteFrom('integration_connections').where('merchant_id', '=', m.merchant.id).execute();
  await dropMerchant(env.handle.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
  await cardB.stop();
  await regA.stop();
  await env.close();
});

describe('register-a dispatch of a test-mode transaction', () => {
  test('is not pushed as a real paid order that the register can finalise fiscally', async () => {
    // The worker runs the post-capture without a register; we then dispatch the (now test-mode) transaction ourselves.
    const id = await captureOrder({ env, tdb, merchant: m, payments: providers(), cardB });
    // The worker's own dispatch (no register) runs after the kitchen documents: waited for, so it cannot
    // overwrite the outcome of the dispatch below (it answered not_configured after it, now and then).
    await waitFor(async () => (await registerSyncOf(tdb, id)).status ?? undefined, 15_000, 'the worker\'s dispatch');
    await tdb.updateTable('transactions').set({ is_test: true }).where('id', '=', id).execute();
    await dispatchOrderToRegister(tdb, id, { deps: registers(), tenantDatabase: m.merchant.tenant_database });
    const pushed = regA.orders(setup.storeIds[0]!).filter((o) => o.orderId === id);
    expect(pushed.map((o) => o.testOrder)).toEqual([true]);
    // And then staff "Process order" cannot put it in the fiscal sales.
    expect(() => regA.process(pushed[0]!.id)).toThrow('A test order cannot be finalised');
    expect((await registerSyncOf(tdb, id)).status).toBe('synced');
  });

  test('a register without test orders (register-b/-c/-d) is not sent a test-mode order: skipped', async () => {
    const id = await captureOrder({ env, tdb, merchant: m, payments: providers(), cardB });
    // The worker's own dispatch (no register) runs after the kitchen documents: waited for, so it cannot
    // overwrite the outcome of the dispatch below (it answered not_configured after it, now and then).
    await waitFor(async () => (await registerSyncOf(tdb, id)).status ?? undefined, 15_000, 'the worker\'s dispatch');
    await tdb.updateTable('transactions').set({ is_test: true }).where('id', '=', id).execute();
    let pushes = 0;
    const realOnly: RegisterDispatchDeps = { central: env.handle.db, dispatchers: [{ provider: 'register-b', target: async () => ({ push: async () => ({ externalId: `x${++pushes}` }) }) }] };
    await dispatchOrderToRegister(tdb, id, { deps: realOnly, tenantDatabase: m.merchant.tenant_database });
    expect(pushes).toBe(0);
    const detail = 'A test-mode order is not sent to register-b, which has no test orders.';
    expect(await registerSyncOf(tdb, id)).toEqual({ status: 'skipped', detail });
    expect((await listSteps(tdb, id)).find((s) => s.step === 'register_dispatch')).toEqual({ step: 'register_dispatch', outcome: 'skipped', detail });
  });
});
