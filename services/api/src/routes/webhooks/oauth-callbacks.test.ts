import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { mintOAuthState } from '@pos/core/integrations/oauth-state';
import { decryptSecret, parseTokenKey } from '@pos/core/integrations/token-crypto';
import { startOAuthSimulator, type OAuthSimulator } from '@pos/providers/oauth/oauth-simulator';
import type { OAuthProvider } from '@pos/providers/oauth/oauth-client';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

// OAuth callbacks (issue 13): signed, expiring, single-use state binding merchant and location; the code
// exchanged at the provider's token endpoint (a real HTTP simulator); tokens stored encrypted.
const TOKEN_KEY = 'b'.repeat(64);
const STATE_SECRET = 'oauth-state-secret-0123456789abcdef';
const PROVIDERS: OAuthProvider[] = ['shop-a', 'platform-a', 'delivery-b', 'register-c'];
const sims: Partial<Record<OAuthProvider, OAuthSimulator>> = {};
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
const key = parseTokenKey(TOKEN_KEY)!;
const envOf = (p: OAuthProvider) => p.toUpperCase().replace('-', '_');
const REDIRECT = 'https://backoffice.example.test/integrations/callback';

beforeAll(async () => {
  const env: Record<string, string> = { INTEGRATION_TOKEN_KEY: TOKEN_KEY, OAUTH_STATE_SECRET: STATE_SECRET };
  for (const p of PROVIDERS) {
    const sim = startOAuthSimulator({ provider: p, clientId: `${p}-client`, clientSecret: `${p}-client-secret` });
    sims[p] = sim;
    env[`${envOf(p)}_OAUTH_URL`] = sim.url;
    env[`${envOf(p)}_CLIENT_ID`] = `${p}-client`;
    env[`${envOf(p)}_CLIENT_SECRET`] = `${p}-client-secret`;
  }
  env.REGISTER_C_OAUTH_REDIRECT_URI = REDIRECT;
  api = await createTestApi({ env });
  m = await api.seed('oauth');
  other = await api.seed('oauth-b');
}, 60_000);
afterAll(async () => {
  await api.close();
  for (const s of Object.values(sims)) await s!.stop();
});

const state = (provider: OAuthProvider, o: { merchant?: DemoSeedResult; now?: Date; secret?: string } = {}) =>
  mintOAuthState({ secret: o.secret ?? STATE_SECRET, provider, merchantId: (o.merchant ?? m).merchant.id, locationId: (o.merchant ?? m).locations[0]!.id, now: o.now ?? new Date() }).state;
const callback = (path: string, q: Record<string, string>) => api.call('GET', `${path}?${new URLSearchParams(q)}`);
const connection = (provider: string, ref: string) =>
  api.deps.db.selectFrom('integration_connections').selectAll().where('provider', '=', provider).where('external_ref', '=', ref).executeTakeFirst();
const INVALID = { status: 400, body: { message: 'Invalid or expired OAuth state.' } };

describe('OAuth callbacks', () => {
  test.each([
    ['platform-a', '/api/platform-a-callback'],
    ['delivery-b', '/api/delivery-b/callback'],
    ['register-c', '/api/register-c/callback'],
    ['register-c', '/api/oauth/register-c/callback'],
  ] as const)('%s via %s: code exchanged, tokens stored encrypted on the connection', async (provider, path) => {
    const account = `acct-${crypto.randomUUID().slice(0, 8)}`;
    const code = sims[provider]!.issueCode({ accountId: account, ...(provider === 'register-c' ? { redirectUri: REDIRECT } : {}) });
    const r = await callback(path, { code, state: state(provider) });
    expect(r.status).toBe(200);
    // delivery-b: the account is kept under its own provider word, apart from the stores (keyed by store id).
    const c = await connection(provider === 'delivery-b' ? 'delivery-b-account' : provider, account);
    expect(r.body).toEqual({ status: 'success', data: { provider, connection_id: c!.id, location_id: m.locations[0]!.id } });
    const issued = sims[provider]!.issued.at(-1)!;
    expect(c).toMatchObject({ merchant_id: m.merchant.id, location_id: provider === 'delivery-b' ? null : m.locations[0]!.id, status: 'active', scopes: 'read write' });
    expect(c!.access_token_encrypted).not.toContain(issued.accessToken);
    expect(decryptSecret(key, c!.access_token_encrypted!)).toBe(issued.accessToken);
    expect(decryptSecret(key, c!.refresh_token_encrypted!)).toMatch(new RegExp(`^rt_${provider}_`));
    expect(c!.token_expires_at!.getTime()).toBeGreaterThan(Date.now() + 3500_000);
  });

  test('shop-a: the connection is keyed by the shop name (domain without the platform suffix)', async () => {
    const shop = `bakery-${crypto.randomUUID().slice(0, 6)}`;
    const code = sims['shop-a']!.issueCode({ accountId: `${shop}.myshop-a.com` });
    const r = await callback('/api/shop-a-callback', { code, state: state('shop-a'), shop: `${shop}.myshop-a.com`, hmac: 'ignored', timestamp: '1' });
    expect(r.status).toBe(200);
    expect(await connection('shop-a', shop)).toMatchObject({ merchant_id: m.merchant.id });
  });

  test("shop-a: a token answer that does not name the shop cannot connect the shop the callback's query names (400, nothing stored)", async () => {
    // The callback's `shop` is the caller's to edit; only the provider's answer can bind the code to a shop.
    const victim = `victim-${crypto.randomUUID().slice(0, 6)}`;
    const code = sims['shop-a']!.issueCode({ accountId: '' });
    const r = await callback('/api/shop-a-callback', { code, state: state('shop-a'), shop: `${victim}.myshop-a.com` });
    expect(r).toMatchObject({ status: 400, body: { message: 'The authorization code was not granted for this shop.', reason: 'shop_mismatch' } });
    expect(await connection('shop-a', victim)).toBeUndefined();
  });

  test('forged, expired, another provider\'s, missing, or another secret\'s state: 400, nothing stored, the code not spent', async () => {
    const account = `acct-${crypto.randomUUID().slice(0, 8)}`;
    const code = sims['delivery-b']!.issueCode({ accountId: account });
    const good = state('delivery-b');
    const [body, sig] = good.split('.');
    const tampered = `${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body!, 'base64url').toString()), m: other.merchant.id })).toString('base64url')}.${sig}`;
    for (const s of [tampered, state('delivery-b', { now: new Date(Date.now() - 11 * 60_000) }), state('register-c'), state('delivery-b', { secret: 'another-secret-0123456789abcdef0123' }), 'x'.repeat(60)]) {
      expect(await callback('/api/delivery-b/callback', { code, state: s })).toMatchObject(INVALID);
    }
    expect(await callback('/api/delivery-b/callback', { code })).toMatchObject(INVALID);
    expect(await connection('delivery-b-account', account)).toBeUndefined();
    expect(sims['delivery-b']!.issued.filter((i) => i.code === code)).toEqual([]);
    // The same code with a good state still works: the refusals spent nothing.
    expect((await callback('/api/delivery-b/callback', { code, state: good })).status).toBe(200);
  });

  test('a state is used once: the replayed callback is 400', async () => {
    const s = state('platform-a');
    const first = sims['platform-a']!.issueCode({ accountId: `acct-${crypto.randomUUID().slice(0, 8)}` });
    expect((await callback('/api/platform-a-callback', { code: first, state: s })).status).toBe(200);
    const account = `acct-${crypto.randomUUID().slice(0, 8)}`;
    const second = sims['platform-a']!.issueCode({ accountId: account });
    expect(await callback('/api/platform-a-callback', { code: second, state: s })).toMatchObject(INVALID);
    expect(await connection('platform-a', account)).toBeUndefined();
  });

  test('a code the provider refuses, or a provider error: 400, nothing stored', async () => {
    expect(await callback('/api/register-c/callback', { code: 'code_unknown', state: state('register-c') })).toMatchObject({
      status: 400,
      body: { message: 'The provider did not accept the authorization code.', reason: 'code_rejected' },
    });
    expect(await callback('/api/register-c/callback', { error: 'access_denied', state: state('register-c') })).toMatchObject({
      status: 400,
      body: { message: 'The provider did not grant access.', reason: 'access_denied' },
    });
  });

  test('an account connected to another merchant: 409, its tokens unchanged', async () => {
    const account = `acct-${crypto.randomUUID().slice(0, 8)}`;
    expect((await callback('/api/delivery-b/callback', { code: sims['delivery-b']!.issueCode({ accountId: account }), state: state('delivery-b', { merchant: other }) })).status).toBe(200);
    const before = await connection('delivery-b-account', account);
    expect(before).toMatchObject({ merchant_id: other.merchant.id });
    const r = await callback('/api/delivery-b/callback', { code: sims['delivery-b']!.issueCode({ accountId: account }), state: state('delivery-b') });
    expect(r).toMatchObject({ status: 409, body: { reason: 'integration_taken' } });
    expect(await connection('delivery-b-account', account)).toEqual(before);
  });

  test('register-c: connecting another account replaces the merchant\'s connection (one live account and token), the old account\'s mappings go', async () => {
    const rc = await api.seed('oauth-rc');
    const db = api.deps.db;
    const rcState = () => mintOAuthState({ secret: STATE_SECRET, provider: 'register-c', merchantId: rc.merchant.id, locationId: null, now: new Date() }).state;
    const connect = (account: string) => callback('/api/register-c/callback', { code: sims['register-c']!.issueCode({ accountId: account, redirectUri: REDIRECT }), state: rcState() });
    const rows = () => db.selectFrom('integration_connections').selectAll().where('merchant_id', '=', rc.merchant.id).where('provider', '=', 'register-c').orderBy('created_at').execute();
    const a = `acct-a-${crypto.randomUUID().slice(0, 8)}`;
    const b = `acct-b-${crypto.randomUUID().slice(0, 8)}`;
    const first = await connect(a);
    expect(first.status).toBe(200);
    const id = (first.body as { data: { connection_id: string } }).data.connection_id;
    await db.insertInto('register_c_mappings').values({ merchant_id: rc.merchant.id, location_id: rc.locations[0]!.id, connection_id: id, register_c_location_id: `${a}-loc`, created_at: new Date(), updated_at: new Date() }).execute();
    // The payment-method map (PUT /payment-methods) holds the old account's register-c ids.
    await db.updateTable('integration_connections').set({ settings: JSON.stringify({ payment_methods: { card: `${a}-pm-card` } }) }).where('id', '=', id).execute();

    const second = await connect(b);
    expect(second).toMatchObject({ status: 200, body: { status: 'success', data: { provider: 'register-c', connection_id: id, location_id: null } } });
    const [only, ...more] = await rows();
    expect(more).toEqual([]);
    expect(only).toMatchObject({ id, external_ref: b, status: 'active' });
    expect(only!.settings).toEqual({});
    expect(decryptSecret(key, only!.access_token_encrypted!)).toBe(sims['register-c']!.issued.at(-1)!.accessToken);
    expect(await connection('register-c', a)).toBeUndefined();
    expect(await db.selectFrom('register_c_mappings').selectAll().where('merchant_id', '=', rc.merchant.id).execute()).toEqual([]);

    // A second live connection left by the old behaviour is switched off (tokens dropped) by the next connect.
    const stale = Bun.randomUUIDv7();
    const old = new Date(Date.now() - 60_000);
    await db.insertInto('integration_connections').values({ id: stale, provider: 'register-c', external_ref: a, merchant_id: rc.merchant.id, status: 'active', access_token_encrypted: 'x', refresh_token_encrypted: 'y', settings: JSON.stringify({}), connected_at: old, created_at: old, updated_at: old }).execute();
    expect((await connect(b)).status).toBe(200);
    expect((await rows()).map((r) => [r.id, r.external_ref, r.status, r.access_token_encrypted, r.refresh_token_encrypted])).toEqual([
      [stale, a, 'disabled', null, null],
      [id, b, 'active', expect.any(String), expect.any(String)],
    ]);
    // Connecting that older account again makes it the merchant's connection; the other is switched off.
    expect(await connect(a)).toMatchObject({ status: 200, body: { data: { connection_id: stale } } });
    expect((await rows()).map((r) => [r.id, r.external_ref, r.status])).toEqual([
      [id, b, 'disabled'],
      [stale, a, 'active'],
    ]);
  });

  test('register-c: two merchants connecting one new account at once: one 200, one 409 integration_taken, never a 5xx', async () => {
    const rcState = (mm: DemoSeedResult) => mintOAuthState({ secret: STATE_SECRET, provider: 'register-c', merchantId: mm.merchant.id, locationId: null, now: new Date() }).state;
    const connect = (mm: DemoSeedResult, account: string) => callback('/api/register-c/callback', { code: sims['register-c']!.issueCode({ accountId: account, redirectUri: REDIRECT }), state: rcState(mm) });
    for (let i = 0; i < 6; i++) {
      const account = `acct-race-${crypto.randomUUID().slice(0, 8)}`;
      const answers = await Promise.all([connect(m, account), connect(other, account)]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
      expect(answers.find((r) => r.status === 409)).toMatchObject({ body: { reason: 'integration_taken' } });
    }
  });

  test('without OAUTH_STATE_SECRET no state is valid (400, never a 5xx)', async () => {
    const bare = await createTestApi();
    try {
      expect(await bare.call('GET', `/api/shop-a-callback?code=c&state=${state('shop-a')}&shop=x.myshop-a.com`)).toMatchObject(INVALID);
    } finally {
      await bare.close();
    }
  });
});
