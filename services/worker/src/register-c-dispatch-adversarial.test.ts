import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { seedDemo, type DemoSeedResult } from '@pos/core/seed/demo-seed';
import { paymentProvidersFromEnv } from '@pos/core/payments/payment-providers';
import { dispatchOrderToRegister } from '@pos/core/payments/post-capture';
import { loadTransaction } from '@pos/core/payments/transaction-records';
import { registerDispatchFromEnv } from '@pos/core/integrations/dispatch-register';
import { encryptSecret, parseTokenKey } from '@pos/core/integrations/token-crypto';
import { startCardBSimulator, type CardBSimulator } from '@pos/providers/payments';
import { fromCents } from '@pos/providers/register-c/register-c-client';
import { startRegisterCSimulator, type RegisterCSimulator } from '@pos/providers/register-c/register-c-simulator';
import { stopWorker, type RunningWorker } from './worker.ts';
import { captureKioskOrder, dispatchOutcome, startDispatchWorker } from './register-dispatch.test-support.ts';
import { dropPrefix, openTestEnv, uniquePrefix, type TestEnv } from './test-support.ts';

/**
 * Order dispatch to register-c, probed as a careful merchant would: what we captured is not always
 * what register-c's check totals (a tip is ours, not a line of the check).
 */
const KEY_HEX = 'ce'.repeat(32);
const TOKEN = `tok-rca-${crypto.randomUUID().slice(0, 8)}`;
const ACCOUNT = `acct-rca-${crypto.randomUUID().slice(0, 8)}`;
const RC_LOC = `${ACCOUNT}-loc`;

let env: TestEnv;
let cardB: CardBSimulator;
let rc: RegisterCSimulator;
let worker: RunningWorker;
let m: DemoSeedResult;
let tdb: TenantDb;
let connectionId: string;
const prefix = uniquePrefix();
const providers = () => paymentProvidersFromEnv({ CARD_B_BASE_URL: cardB.url, CARD_B_CLIENT_ID: 'rca', CARD_B_CLIENT_SECRET: 'rca-secret-1' });
const registers = () => registerDispatchFromEnv(env.handle.db, { REGISTER_C_API_URL: rc.url, INTEGRATION_TOKEN_KEY: KEY_HEX });
const item = (name: string) => m.items.find((i) => i.name === name)!;
const checksOf = (id: string) => rc.location(RC_LOC)!.checks.filter((c) => c.reference === id);

beforeAll(async () => {
  env = await openTestEnv();
  cardB = startCardBSimulator({ clientId: 'rca', clientSecret: 'rca-secret-1' });
  rc = startRegisterCSimulator({});
  rc.addAccount(ACCOUNT, [RC_LOC]);
  rc.addToken(TOKEN, ACCOUNT);
  m = await seedDemo(env.handle.db, { slug: `rca-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: 'k'.repeat(20), pinPepper: 'p'.repeat(20) });
  tdb = bindTenant(env.handle.db, m.merchant.tenant_database);
  const loc = m.locations[0]!.id;
  for (const [sku, name] of [['ESP', 'Espresso'], ['CRO', 'Croissant']] as const)
    rc.location(RC_LOC)!.items.push({ sku, name, price: fromCents(item(name).unit_price), accountingGroupId: 'ag-food', taxRateId: 'tr-food', description: name, imageUrl: null, allergenCodes: [], available: true });
  connectionId = Bun.randomUUIDv7();
  const now = new Date();
  await env.handle.db
    .insertInto('integration_connections')
    .values({ id: connectionId, provider: 'register-c', external_ref: ACCOUNT, merchant_id: m.merchant.id, access_token_encrypted: encryptSecret(parseTokenKey(KEY_HEX)!, TOKEN), settings: JSON.stringify({ payment_methods: { card: 'pm-card', online: 'pm-online' } }), connected_at: now, created_at: now, updated_at: now })
    .execute();
  await env.handle.db
    .insertInto('register_c_mappings')
    .values({ merchant_id: m.merchant.id, location_id: loc, connection_id: connectionId, register_c_location_id: RC_LOC, order_settings: JSON.stringify({ kiosk: { account_profile_code: 'TOGO', table_number: null }, online: null }), created_at: now, updated_at: now })
    .execute();
  for (const [name, sku] of [['Espresso', 'ESP'], ['Croissant', 'CRO']] as const)
    await tdb.insertInto('register_c_item_links').values({ location_id: loc, sku, item_id: item(name).id, created_at: now, updated_at: now }).execute();
  worker = await startDispatchWorker(env, prefix, providers(), registers());
}, 60_000);
afterAll(async () => {
  await stopWorker(worker);
  await dropPrefix(env.redis, prefix);
  await env.handle.db.deleteFrom('register_c_mappings').where('merchant_id', '=', m.merchant.id).execute();
  await env.handle.db.deleteFrom('integration_connections').where('merchant_id', '=', m.merchant.id).execute();
  await dropMerchant(env.handle.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
  await cardB.stop();
  await rc.stop();
  await env.close();
});

describe('register-c dispatch: a tip is not a line of the check', () => {
  test('a kiosk order with a tip closes its check with the check total (the tip stays ours); dispatched again, paid once', async () => {
    const id = await captureKioskOrder({ env, tdb, merchant: m, payments: providers(), cardB }, 150);
    const t = await loadTransaction(tdb, id);
    const items = 3 * item('Espresso').unit_price + item('Croissant').unit_price;
    expect(t.total).toBe(items + 150);
    const { step, pos } = await dispatchOutcome(tdb, id);
    const [check] = checksOf(id);
    expect(step).toEqual({ step: 'register_dispatch', outcome: 'synced', detail: `register-c order ${check!.id}` });
    expect(pos).toEqual(['synced', `register-c order ${check!.id}`]);
    expect(check).toMatchObject({ status: 'CLOSED', total: fromCents(items), paid: fromCents(items), payments: [{ reference: `${id}:pay`, paymentMethodId: 'pm-card', amount: fromCents(items) }] });
    await dispatchOrderToRegister(tdb, id, { deps: registers(), tenantDatabase: m.merchant.tenant_database });
    expect(checksOf(id).map((c) => [c.status, c.paid, c.payments.length])).toEqual([['CLOSED', fromCents(items), 1]]);
  });
});

describe('register-c dispatch: a tip does not pay for our discount', () => {
  test('a kiosk order with an offer of ours and a tip pays the check what the goods sold for; the rest stays open for the staff', async () => {
    const now = new Date();
    const offerId = Bun.randomUUIDv7();
    await tdb.insertInto('offers').values({ id: offerId, name: 'Kiosk 10', description: null, status: 'active', rule: JSON.stringify({ kind: 'percentage', percent: 10 }), item_ids: [], category_ids: [], channels: ['kiosk'], location_ids: null, schedule: null, created_at: now, updated_at: now } as never).execute();
    try {
      const items = 3 * item('Espresso').unit_price + item('Croissant').unit_price;
      // A tip above the discount: paying the captured total up to the balance would close the check with the tip.
      const tip = 500;
      const id = await captureKioskOrder({ env, tdb, merchant: m, payments: providers(), cardB }, tip);
      const t = await loadTransaction(tdb, id);
      expect(t.discount).toBeGreaterThan(0);
      expect(t.discount).toBeLessThan(tip);
      expect(t.total).toBe(items - t.discount + tip);
      const { step } = await dispatchOutcome(tdb, id);
      expect(step!.outcome).toBe('synced');
      const [check] = checksOf(id);
      expect(check).toMatchObject({ status: 'OPEN', total: fromCents(items), paid: fromCents(items - t.discount), payments: [{ reference: `${id}:pay`, paymentMethodId: 'pm-card', amount: fromCents(items - t.discount) }] });
    } finally {
      await tdb.deleteFrom('offers').where('id', '=', offerId).execute();
    }
  });
});
