import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { seedDemo, type DemoSeedResult } from '@pos/core/seed/demo-seed';
import { paymentProvidersFromEnv } from '@pos/core/payments/payment-providers';
import { dispatchOrderToRegister } from '@pos/core/payments/post-capture';
import { retryRegisterSync } from '@pos/core/payments/transaction-actions';
import { loadTransaction, registerSyncOf } from '@pos/core/payments/transaction-records';
import { dispatchToRegister, registerDispatchFromEnv } from '@pos/core/integrations/dispatch-register';
import { decryptSecret, encryptSecret, parseTokenKey } from '@pos/core/integrations/token-crypto';
import { exchangeAuthorizationCode } from '@pos/providers/oauth/oauth-client';
import { startOAuthSimulator, type OAuthSimulator } from '@pos/providers/oauth/oauth-simulator';
import { startCardBSimulator, type CardBSimulator } from '@pos/providers/payments';
import { fromCents } from '@pos/providers/register-c/register-c-client';
import { startRegisterCSimulator, type RegisterCSimLocation, type RegisterCSimulator } from '@pos/providers/register-c/register-c-simulator';
import { stopWorker, type RunningWorker } from './worker.ts';
import { captureKioskOrder as captureOrder, dispatchOutcome, dispatchStep as stepOf, startDispatchWorker } from './register-dispatch.test-support.ts';
import { dropPrefix, openTestEnv, uniquePrefix, type TestEnv } from './test-support.ts';

/**
 * Order dispatch to register-c (issue 17 item 3) through the real worker: a kiosk order captured over
 * card-b (simulator) is sent by `order.dispatch` to the register-c location mapped to its location
 * (simulator over HTTP) as the channel's order settings say, and paid there with the mapped payment
 * method, once whatever the number of runs; refusals are final, an unreachable register-c is retried.
 */
const KEY_HEX = 'cd'.repeat(32);
const TOKEN = `tok-rcd-${crypto.randomUUID().slice(0, 8)}`;
const ACCOUNT = `acct-rcd-${crypto.randomUUID().slice(0, 8)}`;
const RC_LOC = `${ACCOUNT}-loc`;
const KIOSK_TO_GO = { account_profile_code: 'TOGO', table_number: null };
const ONLINE_TABLE_2 = { account_profile_code: 'DINE', table_number: 2 };

let env: TestEnv;
let cardB: CardBSimulator;
let rc: RegisterCSimulator;
let oauth: OAuthSimulator;
let worker: RunningWorker;
let m: DemoSeedResult;
let tdb: TenantDb;
let loc: string;
let connectionId: string;
const prefix = uniquePrefix();
const providers = () => paymentProvidersFromEnv({ CARD_B_BASE_URL: cardB.url, CARD_B_CLIENT_ID: 'rcd', CARD_B_CLIENT_SECRET: 'rcd-secret-1' });
const registers = () => registerDispatchFromEnv(env.handle.db, { REGISTER_C_API_URL: rc.url, INTEGRATION_TOKEN_KEY: KEY_HEX });
const OAUTH_CLIENT = { clientId: 'rcd-client', clientSecret: 'rcd-client-secret' };
/** The dispatch with register-c's token endpoint configured: expired or refused tokens are refreshed. */
const refreshingRegisters = () =>
  registerDispatchFromEnv(env.handle.db, { REGISTER_C_API_URL: rc.url, INTEGRATION_TOKEN_KEY: KEY_HEX, REGISTER_C_OAUTH_URL: oauth.url, REGISTER_C_CLIENT_ID: OAUTH_CLIENT.clientId, REGISTER_C_CLIENT_SECRET: OAUTH_CLIENT.clientSecret });
const setTokens = (t: { access: string; refresh: string | null; expiresAt: Date | null }) =>
  env.handle.db
    .updateTable('integration_connections')
    .set({ access_token_encrypted: encryptSecret(parseTokenKey(KEY_HEX)!, t.access), refresh_token_encrypted: t.refresh ? encryptSecret(parseTokenKey(KEY_HEX)!, t.refresh) : null, token_expires_at: t.expiresAt })
    .where('id', '=', connectionId)
    .execute();
const connectionRow = () => env.handle.db.selectFrom('integration_connections').select(['access_token_encrypted', 'refresh_token_encrypted', 'token_expires_at', 'updated_at']).where('id', '=', connectionId).executeTakeFirstOrThrow();
const item = (name: string) => m.items.find((i) => i.name === name)!;
const rcLocation = (): RegisterCSimLocation => rc.location(RC_LOC)!;
const checksOf = (id: string) => rcLocation().checks.filter((c) => c.reference === id);

const setMapping = (values: { status?: 'active' | 'paused'; order_settings?: Record<string, unknown> }) =>
  env.handle.db
    .updateTable('register_c_mappings')
    .set({ ...(values.status ? { status: values.status } : {}), ...(values.order_settings ? { order_settings: JSON.stringify(values.order_settings) } : {}), updated_at: new Date() })
    .where('connection_id', '=', connectionId)
    .where('location_id', '=', loc)
    .execute();
const setPaymentMethods = (payment_methods: Record<string, string>) =>
  env.handle.db.updateTable('integration_connections').set({ settings: JSON.stringify({ payment_methods }) }).where('id', '=', connectionId).execute();
const link = (name: string, sku: string) =>
  tdb.insertInto('register_c_item_links').values({ location_id: loc, sku, item_id: item(name).id, created_at: new Date(), updated_at: new Date() }).onConflict((oc) => oc.columns(['location_id', 'sku']).doNothing()).execute();

beforeAll(async () => {
  env = await openTestEnv();
  cardB = startCardBSimulator({ clientId: 'rcd', clientSecret: 'rcd-secret-1' });
  oauth = startOAuthSimulator({ provider: 'register-c', ...OAUTH_CLIENT });
  rc = startRegisterCSimulator({ introspect: { url: oauth.url, ...OAUTH_CLIENT } });
  rc.addAccount(ACCOUNT, [RC_LOC]);
  rc.addToken(TOKEN, ACCOUNT);
  m = await seedDemo(env.handle.db, { slug: `rcd-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: 'k'.repeat(20), pinPepper: 'p'.repeat(20) });
  tdb = bindTenant(env.handle.db, m.merchant.tenant_database);
  loc = m.locations[0]!.id;
  // register-c sells our espresso and croissant at our prices, so its check totals what we captured.
  for (const [sku, name] of [['ESP', 'Espresso'], ['CRO', 'Croissant']] as const)
    rcLocation().items.push({ sku, name, price: fromCents(item(name).unit_price), accountingGroupId: 'ag-food', taxRateId: 'tr-food', description: name, imageUrl: null, allergenCodes: [], available: true });
  connectionId = Bun.randomUUIDv7();
  const now = new Date();
  await env.handle.db
    .insertInto('integration_connections')
    .values({ id: connectionId, provider: 'register-c', external_ref: ACCOUNT, merchant_id: m.merchant.id, access_token_encrypted: encryptSecret(parseTokenKey(KEY_HEX)!, TOKEN), settings: JSON.stringify({}), connected_at: now, created_at: now, updated_at: now })
    .execute();
  await setPaymentMethods({ card: 'pm-card', online: 'pm-online' });
  await env.handle.db
    .insertInto('register_c_mappings')
    .values({ merchant_id: m.merchant.id, location_id: loc, connection_id: connectionId, register_c_location_id: RC_LOC, order_settings: JSON.stringify({ kiosk: KIOSK_TO_GO, online: ONLINE_TABLE_2 }), created_at: now, updated_at: now })
    .execute();
  await link('Espresso', 'ESP');
  await link('Croissant', 'CRO');
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
  await oauth.stop();
  await env.close();
});

/** 3 espressos and a croissant at the kiosk, captured over card-b; the worker dispatches them. */
const captureKioskOrder = () => captureOrder({ env, tdb, merchant: m, payments: providers(), cardB });

const dispatchStep = (id: string) => stepOf(tdb, id);
const settled = (id: string) => dispatchOutcome(tdb, id);
const ORDER_TOTAL = () => 3 * item('Espresso').unit_price + item('Croissant').unit_price;
const LINES = () => [
  { sku: 'ESP', name: 'Espresso', quantity: 3, price: fromCents(item('Espresso').unit_price) },
  { sku: 'CRO', name: 'Croissant', quantity: 1, price: fromCents(item('Croissant').unit_price) },
];

describe('order dispatch to register-c', () => {
  test('a captured kiosk order becomes one paid to-go check, in register-c units, even when dispatched again', async () => {
    const id = await captureKioskOrder();
    const { step, pos } = await settled(id);
    const [check] = checksOf(id);
    expect(step).toEqual({ step: 'register_dispatch', outcome: 'synced', detail: `register-c order ${check!.id}` });
    expect(pos).toEqual(['synced', `register-c order ${check!.id}`]);
    const t = await loadTransaction(tdb, id);
    expect(t.total).toBe(ORDER_TOTAL());
    const amount = fromCents(ORDER_TOTAL());
    expect(checksOf(id)).toEqual([
      { id: check!.id, reference: id, profileCode: 'TOGO', tableNumber: null, status: 'CLOSED', total: amount, paid: amount, lines: LINES(), openedAt: expect.any(String), payments: [{ reference: `${id}:pay`, paymentMethodId: 'pm-card', amount }] },
    ]);

    // The job again, twice, and `retry-sync`: register-c answers the same check, paid once.
    await dispatchOrderToRegister(tdb, id, { deps: registers(), tenantDatabase: m.merchant.tenant_database });
    await dispatchOrderToRegister(tdb, id, { deps: registers(), tenantDatabase: m.merchant.tenant_database });
    // `retry-sync` of an order already at its register is refused (409 already_synced): nothing sent.
    await expect(retryRegisterSync(tdb, m.merchant.tenant_database, t)).rejects.toMatchObject({ reason: 'already_synced' });
    await Bun.sleep(600);
    expect(checksOf(id).map((c) => [c.id, c.paid, c.payments.length])).toEqual([[check!.id, amount, 1]]);
    expect(rcLocation().checks.length).toBe(1);
    expect((await registerSyncOf(tdb, id)).status).toBe('synced');
  });

  test('an online order goes to the online settings: a local check on its table, paid with the online method', async () => {
    // Kiosk orders are not routed to register-c for now: the worker records none configured.
    await setMapping({ order_settings: { kiosk: null, online: ONLINE_TABLE_2 } });
    try {
      const id = await captureKioskOrder();
      expect(await settled(id)).toEqual({ step: { step: 'register_dispatch', outcome: 'not_configured', detail: 'No register is configured for this location.' }, pos: ['not_configured', 'No register is configured for this location.'] });
      expect(checksOf(id)).toEqual([]);

      // The same captured order as an online one (the channel is what routes it).
      const t = { ...(await loadTransaction(tdb, id)), channel: 'online_ordering' as const };
      const out = await dispatchToRegister(registers(), tdb, m.merchant.tenant_database, t);
      const [check] = checksOf(id);
      expect(out).toEqual({ status: 'synced', provider: 'register-c', detail: `register-c order ${check!.id}` });
      const amount = fromCents(ORDER_TOTAL());
      expect(check).toEqual({ id: check!.id, reference: id, profileCode: 'DINE', tableNumber: 2, status: 'CLOSED', total: amount, paid: amount, lines: LINES(), openedAt: expect.any(String), payments: [{ reference: `${id}:pay`, paymentMethodId: 'pm-online', amount }] });
      // A delivery (marketplace) order is not sent to register-c (one no register took yet).
      await tdb.deleteFrom('transaction_register_sync').where('transaction_id', '=', id).execute();
      expect(await dispatchToRegister(registers(), tdb, m.merchant.tenant_database, { ...t, channel: 'delivery' })).toEqual({ status: 'not_configured', detail: 'No register is configured for this location.' });
    } finally {
      await setMapping({ order_settings: { kiosk: KIOSK_TO_GO, online: ONLINE_TABLE_2 } });
    }
  });

  test('an item without a register-c sku fails for good, naming it; nothing is created or paid', async () => {
    await tdb.deleteFrom('register_c_item_links').where('location_id', '=', loc).where('sku', '=', 'CRO').execute();
    const before = rcLocation().checks.length;
    try {
      const id = await captureKioskOrder();
      const detail = 'No register-c sku is linked at this location for: Croissant.';
      expect(await settled(id)).toEqual({ step: { step: 'register_dispatch', outcome: 'failed', detail }, pos: ['failed', detail] });
      expect(rcLocation().checks.length).toBe(before);
    } finally {
      await link('Croissant', 'CRO');
    }
  });

  test('an unmapped payment method fails for good before anything reaches register-c', async () => {
    await setPaymentMethods({ online: 'pm-online' });
    const before = rc.requests.length;
    try {
      const id = await captureKioskOrder();
      const detail = 'The card payment method is not mapped to a register-c payment method.';
      expect(await settled(id)).toEqual({ step: { step: 'register_dispatch', outcome: 'failed', detail }, pos: ['failed', detail] });
      expect(checksOf(id)).toEqual([]);
      expect(rc.requests.length).toBe(before);
    } finally {
      await setPaymentMethods({ card: 'pm-card', online: 'pm-online' });
    }
  });

  test("register-c's refusal of the order is final and carries its message", async () => {
    rcLocation().items.find((i) => i.sku === 'CRO')!.available = false;
    try {
      const id = await captureKioskOrder();
      const detail = 'register-c: Sku CRO is not available';
      expect(await settled(id)).toEqual({ step: { step: 'register_dispatch', outcome: 'failed', detail }, pos: ['failed', detail] });
      expect(checksOf(id)).toEqual([]);
    } finally {
      rcLocation().items.find((i) => i.sku === 'CRO')!.available = true;
    }
  });

  test('a paused mapping, no mapping or no usable connection: not configured', async () => {
    await setMapping({ status: 'paused' });
    try {
      const id = await captureKioskOrder();
      expect(await settled(id)).toEqual({ step: { step: 'register_dispatch', outcome: 'not_configured', detail: 'No register is configured for this location.' }, pos: ['not_configured', 'No register is configured for this location.'] });
      expect(checksOf(id)).toEqual([]);
    } finally {
      await setMapping({ status: 'active' });
    }
    const d = registers().dispatchers[0]!;
    expect(d.provider).toBe('register-c');
    const tenant = m.merchant.tenant_database;
    expect(await d.target(tenant, loc, 'kiosk')).not.toBeNull();
    // The second location has no mapping; another tenant database is another merchant.
    expect(await d.target(tenant, m.locations[1]!.id, 'kiosk')).toBeNull();
    expect(await d.target('tenant_nobody', loc, 'kiosk')).toBeNull();
    // A token the configured key cannot read, or a disabled connection.
    expect(await registerDispatchFromEnv(env.handle.db, { REGISTER_C_API_URL: rc.url, INTEGRATION_TOKEN_KEY: 'ef'.repeat(32) }).dispatchers[0]!.target(tenant, loc, 'kiosk')).toBeNull();
    await env.handle.db.updateTable('integration_connections').set({ status: 'disabled' }).where('id', '=', connectionId).execute();
    try {
      expect(await d.target(tenant, loc, 'kiosk')).toBeNull();
    } finally {
      await env.handle.db.updateTable('integration_connections').set({ status: 'active' }).where('id', '=', connectionId).execute();
    }
    // Without its API address or the token key, no register-c dispatcher is configured.
    expect(registerDispatchFromEnv(env.handle.db, { INTEGRATION_TOKEN_KEY: KEY_HEX }).dispatchers).toEqual([]);
    expect(registerDispatchFromEnv(env.handle.db, { REGISTER_C_API_URL: rc.url }).dispatchers).toEqual([]);
  });

  test('an expired stored token is refreshed before the order is sent; a refused refresh is retried as a refused token', async () => {
    // Kiosk orders are not routed by the worker's own dispatch here; the order is sent as an online one below.
    await setMapping({ order_settings: { kiosk: null, online: ONLINE_TABLE_2 } });
    const first = await exchangeAuthorizationCode({ provider: 'register-c', baseUrl: oauth.url, ...OAUTH_CLIENT }, oauth.issueCode({ accountId: ACCOUNT }));
    rc.addToken(first.accessToken, ACCOUNT);
    rc.expireToken(first.accessToken);
    try {
      const id = await captureKioskOrder();
      expect((await settled(id)).pos[0]).toBe('not_configured');
      const t = { ...(await loadTransaction(tdb, id)), channel: 'online_ordering' as const };

      // The refresh token revoked: one refresh attempt, register-c's 401, retried later; nothing stored or created.
      await setTokens({ access: first.accessToken, refresh: first.refreshToken, expiresAt: new Date(Date.now() - 1000) });
      oauth.revokeRefreshToken(first.refreshToken!);
      const before = await connectionRow();
      expect(await dispatchToRegister(refreshingRegisters(), tdb, m.merchant.tenant_database, t)).toEqual({ status: 'retrying', provider: 'register-c', detail: 'register-c: The access token has expired' });
      expect(oauth.tokenRequests.filter((g) => g === 'refresh_token')).toHaveLength(1);
      expect(await connectionRow()).toEqual(before);
      expect(checksOf(id)).toEqual([]);

      // A valid refresh token: refreshed before the order, which is created and paid with the new token.
      const second = await exchangeAuthorizationCode({ provider: 'register-c', baseUrl: oauth.url, ...OAUTH_CLIENT }, oauth.issueCode({ accountId: ACCOUNT }));
      await setTokens({ access: first.accessToken, refresh: second.refreshToken, expiresAt: new Date(Date.now() - 1000) });
      const out = await dispatchToRegister(refreshingRegisters(), tdb, m.merchant.tenant_database, t);
      const [check] = checksOf(id);
      expect(out).toEqual({ status: 'synced', provider: 'register-c', detail: `register-c order ${check!.id}` });
      expect(check).toMatchObject({ profileCode: 'DINE', tableNumber: 2, status: 'CLOSED', payments: [{ reference: `${id}:pay`, paymentMethodId: 'pm-online' }] });
      const issued = oauth.issued.at(-1)!;
      expect(issued.grant).toBe('refresh_token');
      const row = await connectionRow();
      const key = parseTokenKey(KEY_HEX)!;
      expect([decryptSecret(key, row.access_token_encrypted!), decryptSecret(key, row.refresh_token_encrypted!)]).toEqual([issued.accessToken, issued.refreshToken]);
      expect(row.token_expires_at!.getTime()).toBeGreaterThan(Date.now() + 3500_000);
      expect(oauth.tokenRequests.filter((g) => g === 'refresh_token')).toHaveLength(2);
    } finally {
      await setTokens({ access: TOKEN, refresh: null, expiresAt: null });
      await setMapping({ order_settings: { kiosk: KIOSK_TO_GO, online: ONLINE_TABLE_2 } });
    }
  });

  test('register-c down or unreachable: the job throws (retried with backoff), then the same check is found', async () => {
    const id = await captureKioskOrder();
    await settled(id);
    await tdb.deleteFrom('transaction_register_sync').where('transaction_id', '=', id).execute();
    rc.failWith = 503;
    try {
      await expect(dispatchOrderToRegister(tdb, id, { deps: registers(), tenantDatabase: m.merchant.tenant_database })).rejects.toThrow(/will be retried: register-c: Service unavailable/);
      expect((await registerSyncOf(tdb, id)).status).toBe('retrying');
    } finally {
      rc.failWith = null;
    }
    const down = registerDispatchFromEnv(env.handle.db, { REGISTER_C_API_URL: 'http://127.0.0.1:1', INTEGRATION_TOKEN_KEY: KEY_HEX });
    await expect(dispatchOrderToRegister(tdb, id, { deps: down, tenantDatabase: m.merchant.tenant_database })).rejects.toThrow(/will be retried/);
    expect((await registerSyncOf(tdb, id)).status).toBe('retrying');
    // An expired token (401) is retried too: it clears once the merchant reconnects.
    rc.expireToken(TOKEN);
    try {
      await expect(dispatchOrderToRegister(tdb, id, { deps: registers(), tenantDatabase: m.merchant.tenant_database })).rejects.toThrow(/will be retried: register-c: The access token has expired/);
    } finally {
      rc.addToken(TOKEN, ACCOUNT);
    }
    // Reachable again: the check the first run created, paid once.
    await dispatchOrderToRegister(tdb, id, { deps: registers(), tenantDatabase: m.merchant.tenant_database });
    const t = await registerSyncOf(tdb, id);
    expect(t.status).toBe('synced');
    expect(checksOf(id).map((c) => [t.detail, c.status, c.payments.length])).toEqual([[`register-c order ${checksOf(id)[0]!.id}`, 'CLOSED', 1]]);
  });
});
