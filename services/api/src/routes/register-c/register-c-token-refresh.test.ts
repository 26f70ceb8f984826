import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { syncClientsFromEnv, syncConnection, syncRunners, runProviderSync } from '@pos/core/integrations/sync-runners';
import { decryptSecret, parseTokenKey } from '@pos/core/integrations/token-crypto';
import { refreshAccessToken } from '@pos/providers/oauth/oauth-client';
import { startOAuthSimulator, type OAuthSimulator } from '@pos/providers/oauth/oauth-simulator';
import { startRegisterCSimulator, type RegisterCSimulator } from '@pos/providers/register-c/register-c-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

// register-c OAuth token refresh (issue 17) against the OAuth and API simulators over real HTTP, with
// the connection stored in the database: an expiring token is refreshed before the call, a refused one
// (401) once then the call retried, rotated refresh tokens are kept, concurrent calls refresh once, and
// a refused refresh leaves the connection as it was with the existing error.
const TOKEN_KEY = 'd'.repeat(64);
const KEY = parseTokenKey(TOKEN_KEY)!;
const STATE_SECRET = 'oauth-state-secret-register-c-refresh-0123';
const REDIRECT = 'https://backoffice.example.test/integrations/register-c';
const BASE = '/api/back-office/register-c';
const OAUTH_CLIENT = { clientId: 'rc-client', clientSecret: 'rc-client-secret' };
const MENUS = { status: 200, body: { data: [{ id: 'menu-1', name: 'All day' }] } };
const TOKEN_REJECTED = { status: 409, body: { message: 'register-c refused the stored access token: reconnect the integration.', reason: 'provider_token_rejected' } };

let api: TestApi;
let oauth: OAuthSimulator;
let rc: RegisterCSimulator;
let m: DemoSeedResult;
let owner: string;
let loc: string;

const row = () =>
  api.deps.db
    .selectFrom('integration_connections')
    .select(['id', 'status', 'access_token_encrypted', 'refresh_token_encrypted', 'token_expires_at', 'updated_at'])
    .where('merchant_id', '=', m.merchant.id)
    .where('provider', '=', 'register-c')
    .executeTakeFirstOrThrow();
/** The connection's tokens in clear. */
const stored = async () => {
  const r = await row();
  return { access: decryptSecret(KEY, r.access_token_encrypted!), refresh: decryptSecret(KEY, r.refresh_token_encrypted!), expiresAt: r.token_expires_at };
};
const setExpiry = (at: Date | null) => api.deps.db.updateTable('integration_connections').set({ token_expires_at: at }).where('merchant_id', '=', m.merchant.id).where('provider', '=', 'register-c').execute();
const refreshes = () => oauth.tokenRequests.filter((g) => g === 'refresh_token').length;
const menus = () => api.call('GET', `${BASE}/menus?location_id=${loc}`, { token: owner });
const past = () => new Date(Date.now() - 60_000);

/** The tokens the connection should hold after a refresh: the newest issued, expiring in an hour. */
async function expectRefreshedTo(issued: OAuthSimulator['issued'][number]) {
  const s = await stored();
  expect(issued.grant).toBe('refresh_token');
  expect({ access: s.access, refresh: s.refresh }).toEqual({ access: issued.accessToken, refresh: issued.refreshToken });
  expect(s.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 3500_000);
  expect(s.expiresAt!.getTime()).toBeLessThanOrEqual(Date.now() + 3600_000);
}

beforeAll(async () => {
  oauth = startOAuthSimulator({ provider: 'register-c', ...OAUTH_CLIENT });
  rc = startRegisterCSimulator({ introspect: { url: oauth.url, ...OAUTH_CLIENT } });
  rc.addAccount('acct-refresh', ['bl-r1']);
  api = await createTestApi({
    env: {
      INTEGRATION_TOKEN_KEY: TOKEN_KEY,
      OAUTH_STATE_SECRET: STATE_SECRET,
      REGISTER_C_OAUTH_URL: oauth.url,
      REGISTER_C_CLIENT_ID: OAUTH_CLIENT.clientId,
      REGISTER_C_CLIENT_SECRET: OAUTH_CLIENT.clientSecret,
      REGISTER_C_OAUTH_REDIRECT_URI: REDIRECT,
      REGISTER_C_API_URL: rc.url,
    },
  });
  m = await api.seed('register-c-refresh');
  owner = await api.ownerToken(m);
  loc = m.locations[0]!.id;
  // Connected through the OAuth flow, as a merchant would, and mapped.
  const start = await api.call('POST', `${BASE}/oauth`, { token: owner });
  const code = oauth.issueCode({ accountId: 'acct-refresh', redirectUri: REDIRECT });
  expect((await api.call('GET', `/api/register-c/callback?${new URLSearchParams({ code, state: start.body.data.state })}`)).status).toBe(200);
  expect((await api.call('PUT', `${BASE}/mappings/${loc}`, { token: owner, body: { register_c_location_id: 'bl-r1' } })).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await api.close();
  await rc.stop();
  await oauth.stop();
});

describe('register-c token refresh', () => {
  test('a fresh token is used as is: no refresh', async () => {
    const before = await stored();
    expect(await menus()).toMatchObject(MENUS);
    expect(refreshes()).toBe(0);
    expect(await stored()).toEqual(before);
  });

  test('an expired stored token is refreshed before the call; the connection holds the rotated tokens', async () => {
    const old = await stored();
    await setExpiry(past());
    const from = rc.requests.length;
    expect(await menus()).toMatchObject(MENUS);
    expect(refreshes()).toBe(1);
    await expectRefreshedTo(oauth.issued.at(-1)!);
    // Only the one call reached register-c, with the new token (the old one was never refused).
    expect(rc.requests.slice(from)).toEqual([{ method: 'GET', path: '/v1/locations/bl-r1/menus' }]);
    // Rotation: the refresh token presented is spent, the stored one is the new one.
    expect((await stored()).refresh).not.toBe(old.refresh);
    const spent = await refreshAccessToken({ provider: 'register-c', baseUrl: oauth.url, ...OAUTH_CLIENT }, old.refresh!).then(() => null, (e: unknown) => e);
    expect(spent).toMatchObject({ kind: 'rejected', status: 400, code: 'invalid_grant' });
  });

  test('a token expiring within a minute is refreshed too', async () => {
    const n = refreshes();
    await setExpiry(new Date(Date.now() + 30_000));
    expect(await menus()).toMatchObject(MENUS);
    expect(refreshes()).toBe(n + 1);
    await expectRefreshedTo(oauth.issued.at(-1)!);
  });

  test('register-c refusing a token that has not expired here (401): one refresh, the call retried once', async () => {
    const n = refreshes();
    rc.expireToken((await stored()).access!);
    const from = rc.requests.length;
    expect(await api.call('POST', `${BASE}/orders/to-go`, { token: owner, body: { location_id: loc, reference: 'refresh-1', items: [{ sku: 'COLA', quantity: 1 }] } })).toMatchObject({
      status: 200,
      body: { status: 'success', data: { reference: 'refresh-1', account_profile_code: 'TOGO', total_cents: 300 } },
    });
    expect(refreshes()).toBe(n + 1);
    await expectRefreshedTo(oauth.issued.at(-1)!);
    // The first call (the account profiles the order is checked against) was refused, then repeated.
    expect(rc.requests.slice(from)).toEqual([
      { method: 'GET', path: '/v1/locations/bl-r1/account-profiles' },
      { method: 'GET', path: '/v1/locations/bl-r1/account-profiles' },
      { method: 'POST', path: '/v1/locations/bl-r1/orders/to-go' },
    ]);
    expect(rc.location('bl-r1')!.checks.filter((c) => c.reference === 'refresh-1')).toHaveLength(1);
    // /test answers ok with the refreshed token.
    expect(await api.call('GET', `${BASE}/test`, { token: owner })).toMatchObject({ status: 200, body: { data: { ok: true, account_id: 'acct-refresh', businesses: 1, locations: 1 } } });
  });

  test('two concurrent calls with an expired token refresh once; both answer 200 with its token', async () => {
    const n = refreshes();
    await setExpiry(past());
    const [a, b, c] = await Promise.all([menus(), menus(), api.call('GET', `${BASE}/floorplans?location_id=${loc}`, { token: owner })]);
    expect([a, b].map((r) => r.status)).toEqual([200, 200]);
    expect(c).toMatchObject({ status: 200, body: { data: [{ id: 'fp-1', name: 'Main room' }] } });
    expect(refreshes()).toBe(n + 1);
    await expectRefreshedTo(oauth.issued.at(-1)!);
  });

  test('two concurrent calls refused (401) refresh once as well', async () => {
    const n = refreshes();
    rc.expireToken((await stored()).access!);
    const [a, b] = await Promise.all([menus(), menus()]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(refreshes()).toBe(n + 1);
    await expectRefreshedTo(oauth.issued.at(-1)!);
  });

  test('a refused refresh (invalid_grant): the existing 409, the connection unchanged, no second attempt', async () => {
    const s = await stored();
    oauth.revokeRefreshToken(s.refresh!);
    rc.expireToken(s.access!);
    const before = await row();
    const n = oauth.tokenRequests.length;
    const from = rc.requests.length;
    expect(await menus()).toMatchObject(TOKEN_REJECTED);
    expect(oauth.tokenRequests.slice(n)).toEqual(['refresh_token']);
    expect(rc.requests.slice(from)).toEqual([{ method: 'GET', path: '/v1/locations/bl-r1/menus' }]);
    expect(await row()).toEqual(before);

    // Expired here as well: one attempt before the call, none after register-c's 401.
    await setExpiry(past());
    const expired = await row();
    expect(await api.call('POST', `${BASE}/mappings/${loc}/sync`, { token: owner })).toMatchObject(TOKEN_REJECTED);
    expect(oauth.tokenRequests.slice(n)).toEqual(['refresh_token', 'refresh_token']);
    expect(await row()).toEqual(expired);
    // /test reports register-c's refusal.
    expect(await api.call('GET', `${BASE}/test`, { token: owner })).toMatchObject({
      status: 200,
      body: { data: { ok: false, account_id: 'acct-refresh', provider_status: 401, provider_code: 'token_expired', message: 'The access token has expired' } },
    });
  });

  test('the token endpoint down: the existing 409, the connection unchanged', async () => {
    const before = await row();
    const down = await createTestApi({
      env: { INTEGRATION_TOKEN_KEY: TOKEN_KEY, REGISTER_C_OAUTH_URL: 'http://127.0.0.1:1', REGISTER_C_CLIENT_ID: 'rc-client', REGISTER_C_CLIENT_SECRET: 'rc-client-secret', REGISTER_C_API_URL: rc.url },
    });
    try {
      expect(await down.call('GET', `${BASE}/menus?location_id=${loc}`, { token: await down.ownerToken(m) })).toMatchObject(TOKEN_REJECTED);
    } finally {
      await down.close();
    }
    expect(await row()).toEqual(before);
  });

  test('the scheduled sync refreshes an expired token; a refused refresh is an error outcome, nothing stored', async () => {
    // Reconnected: fresh tokens from a new consent.
    const start = await api.call('POST', `${BASE}/oauth`, { token: owner });
    const code = oauth.issueCode({ accountId: 'acct-refresh', redirectUri: REDIRECT });
    expect((await api.call('GET', `/api/register-c/callback?${new URLSearchParams({ code, state: start.body.data.state })}`)).status).toBe(200);
    const { id } = await row();
    const runners = syncRunners(
      syncClientsFromEnv({ REGISTER_C_API_URL: rc.url, INTEGRATION_TOKEN_KEY: TOKEN_KEY, REGISTER_C_OAUTH_URL: oauth.url, REGISTER_C_CLIENT_ID: OAUTH_CLIENT.clientId, REGISTER_C_CLIENT_SECRET: OAUTH_CLIENT.clientSecret }),
    );
    const run = async () => runProviderSync({ central: api.deps.db, connection: (await syncConnection(api.deps.db, id))!, now: () => new Date() }, runners);

    const n = refreshes();
    await setExpiry(past());
    rc.expireToken((await stored()).access!);
    expect(await run()).toEqual({ status: 'ok', counts: { locations: 1, created: 0, updated: 0, hidden: 0, suggested: 3 } });
    expect(refreshes()).toBe(n + 1);
    await expectRefreshedTo(oauth.issued.at(-1)!);

    const s = await stored();
    oauth.revokeRefreshToken(s.refresh!);
    rc.expireToken(s.access!);
    await setExpiry(past());
    const before = await row();
    expect(await run()).toEqual({ status: 'error', detail: 'register-c: The access token has expired', retry: false });
    expect(await row()).toEqual(before);
  });

  test('a disabled connection is never refreshed', async () => {
    const n = oauth.tokenRequests.length;
    expect((await api.call('POST', `${BASE}/disable`, { token: owner })).status).toBe(200);
    expect(await menus()).toMatchObject({ status: 404, body: { message: 'Unable to locate the integration you requested.' } });
    expect(oauth.tokenRequests.length).toBe(n);
  });

  test("a refresh in flight while the merchant connects another account does not write the old account's tokens over the new connection", async () => {
    const connect = async (accountId: string) => {
      const start = await api.call('POST', `${BASE}/oauth`, { token: owner });
      const code = oauth.issueCode({ accountId, redirectUri: REDIRECT });
      return api.call('GET', `/api/register-c/callback?${new URLSearchParams({ code, state: start.body.data.state })}`);
    };
    expect((await connect('acct-refresh')).status).toBe(200);
    expect((await api.call('PUT', `${BASE}/mappings/${loc}`, { token: owner, body: { register_c_location_id: 'bl-r1' } })).status).toBe(200);
    await setExpiry(past());
    const n = refreshes();
    const gate = oauth.holdRefreshes();
    let call: ReturnType<typeof menus> | undefined;
    try {
      call = menus();
      // The old account's refresh is at the token endpoint when the merchant connects another account.
      for (let i = 0; i < 200 && refreshes() === n; i++) await Bun.sleep(10);
      expect(refreshes()).toBe(n + 1);
      rc.addAccount('acct-next', ['bl-n1']);
      expect((await connect('acct-next')).status).toBe(200);
    } finally {
      gate.release();
    }
    await call;
    const next = oauth.issued.find((i) => i.grant === 'authorization_code' && i.accountId === 'acct-next')!;
    const c = await api.deps.db.selectFrom('integration_connections').select(['external_ref', 'status']).where('merchant_id', '=', m.merchant.id).where('provider', '=', 'register-c').executeTakeFirstOrThrow();
    expect(c).toEqual({ external_ref: 'acct-next', status: 'active' });
    expect(await stored()).toMatchObject({ access: next.accessToken, refresh: next.refreshToken });
  });
});
