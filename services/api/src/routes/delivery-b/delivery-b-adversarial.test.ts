import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { connectTestDeliveryBAccount } from '@pos/core/integrations/delivery-b-account.test-support';
import { decryptSecret, encryptSecret, parseTokenKey } from '@pos/core/integrations/token-crypto';
import { startOAuthSimulator, type OAuthSimulator } from '@pos/providers/oauth/oauth-simulator';
import { startDeliveryBSimulator, type DeliveryBSimulator } from '@pos/providers/delivery-b/delivery-b-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/**
 * A tester's pass over delivery-b administration: what one merchant learns of, or does to, another's store.
 * The platform token sees every merchant's stores; which are a merchant's is what its delivery-b account
 * (connected through OAuth, kept apart from the stores) answers with its own token.
 */
const TOKEN_KEY = 'ad'.repeat(32);
const STATE_SECRET = 'oauth-state-secret-0123456789abcdef';
let sim: DeliveryBSimulator;
let oauth: OAuthSimulator;
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let none: DemoSeedResult;
let owner: string;
let otherOwner: string;
const mine = () => `/api/back-office/delivery-b/${m.locations[0]!.id}`;
const theirs = () => `/api/back-office/delivery-b/${other.locations[0]!.id}`;
const rows = (merchantId: string) => api.deps.db.selectFrom('integration_connections').select(['provider', 'external_ref', 'location_id', 'status']).where('merchant_id', '=', merchantId).where('provider', 'like', 'delivery-b%').orderBy('provider').orderBy('external_ref').execute();
const unknownStore = { status: 422, body: { errors: { store_id: ['The store could not be found at delivery-b.'] } } };

beforeAll(async () => {
  oauth = startOAuthSimulator({ provider: 'delivery-b', clientId: 'dbadv-client', clientSecret: 'dbadv-client-secret' });
  sim = startDeliveryBSimulator({ apiToken: 'delivery-b-adv-token', introspect: { url: oauth.url, clientId: 'dbadv-client', clientSecret: 'dbadv-client-secret' } });
  sim.addStore('adv-store-1', 'Our corner');
  sim.addStore('adv-store-2', 'Rival bistro');
  sim.addStore('adv-store-3', 'Rival bistro annex');
  sim.addStore('adv-store-free', 'Nobody connected me yet', 'acct-unclaimed');
  api = await createTestApi({
    env: {
      DELIVERY_B_API_URL: sim.url,
      DELIVERY_B_API_TOKEN: 'delivery-b-adv-token',
      INTEGRATION_TOKEN_KEY: TOKEN_KEY,
      OAUTH_STATE_SECRET: STATE_SECRET,
      DELIVERY_B_OAUTH_URL: oauth.url,
      DELIVERY_B_CLIENT_ID: 'dbadv-client',
      DELIVERY_B_CLIENT_SECRET: 'dbadv-client-secret',
      DELIVERY_B_OAUTH_REDIRECT_URI: 'https://backoffice.example.test/delivery-b/callback',
    },
  });
  m = await api.seed('dbb-adv');
  other = await api.seed('dbb-adv-rival');
  none = await api.seed('dbb-adv-none');
  owner = await api.ownerToken(m);
  otherOwner = await api.ownerToken(other);
  await connectTestDeliveryBAccount(api.deps.db, sim, { merchantId: m.merchant.id, tokenKeyHex: TOKEN_KEY, stores: ['adv-store-1'] });
  await connectTestDeliveryBAccount(api.deps.db, sim, { merchantId: other.merchant.id, tokenKeyHex: TOKEN_KEY, stores: ['adv-store-2', 'adv-store-3'] });
}, 60_000);
afterAll(async () => {
  await api.close();
  await sim.stop();
  await oauth.stop();
});

describe("delivery-b: another merchant's stores", () => {
  test("the store list is the merchant's own account's stores: never another merchant's, connected or not", async () => {
    expect((await api.call('POST', theirs(), { token: otherOwner, body: { store_id: 'adv-store-2' } })).status).toBe(200);
    // A disabled connection keeps its store for that merchant.
    const theirs1 = `/api/back-office/delivery-b/${other.locations[1]!.id}`;
    expect((await api.call('POST', theirs1, { token: otherOwner, body: { store_id: 'adv-store-3' } })).status).toBe(200);
    expect((await api.call('DELETE', theirs1, { token: otherOwner })).status).toBe(200);
    const list = await api.call('GET', `${mine()}/store-list`, { token: owner });
    expect({ status: list.status, body: list.body }).toEqual({ status: 200, body: { data: [{ id: 'adv-store-1', name: 'Our corner', selected: false }] } });
    // The rival sees its own, the disabled one included (it may connect it again), and not ours.
    expect((await api.call('GET', `${theirs()}/store-list`, { token: otherOwner })).body).toEqual({
      data: [
        { id: 'adv-store-2', name: 'Rival bistro', selected: true },
        { id: 'adv-store-3', name: 'Rival bistro annex', selected: false },
      ],
    });
  });

  test("a store id typed in that is not the merchant's (the rival's, or nobody's yet) is the unknown store's 422, nothing written", async () => {
    const before = await rows(m.merchant.id);
    for (const store_id of ['adv-store-3', 'adv-store-free']) expect(await api.call('POST', mine(), { token: owner, body: { store_id } })).toMatchObject(unknownStore);
    expect(await rows(m.merchant.id)).toEqual(before);
    expect(sim.stores.get('adv-store-free')!.integrationEnabled).toBe(false);
  });

  test('without a connected delivery-b account: no store is listed and none can be connected', async () => {
    const token = await api.ownerToken(none);
    const base = `/api/back-office/delivery-b/${none.locations[0]!.id}`;
    expect((await api.call('GET', `${base}/store-list`, { token })).body).toEqual({ data: [] });
    for (const store_id of ['adv-store-1', 'adv-store-free']) expect(await api.call('POST', base, { token, body: { store_id } })).toMatchObject(unknownStore);
    expect(await rows(none.merchant.id)).toEqual([]);
  });

  test("the OAuth callback connects the ACCOUNT, in its own key space: an account id equal to a store id takes no store", async () => {
    const started = await api.call('POST', `/api/back-office/delivery-b/${none.locations[0]!.id}/oauth`, { token: await api.ownerToken(none) });
    expect(started.status).toBe(200);
    const url = new URL(started.body.data.authorize_url);
    expect([url.origin, url.pathname, url.searchParams.get('client_id'), url.searchParams.get('state')]).toEqual([new URL(oauth.url).origin, '/oauth/authorize', 'dbadv-client', started.body.data.state]);
    // The account id is spelled like the unconnected store: before, it became that store's connection (and took its order webhooks).
    const code = oauth.issueCode({ accountId: 'adv-store-free' });
    const r = await api.call('GET', `/api/delivery-b/callback?${new URLSearchParams({ code, state: started.body.data.state })}`);
    expect(r).toMatchObject({ status: 200, body: { status: 'success', data: { provider: 'delivery-b', location_id: none.locations[0]!.id } } });
    expect(await rows(none.merchant.id)).toEqual([{ provider: 'delivery-b-account', external_ref: 'adv-store-free', location_id: null, status: 'active' }]);
    expect(await api.deps.db.selectFrom('integration_connections').select('id').where('provider', '=', 'delivery-b').where('external_ref', '=', 'adv-store-free').execute()).toEqual([]);
    // That account (through the token the code gave) owns no store at delivery-b: still nothing to list.
    expect((await api.call('GET', `/api/back-office/delivery-b/${none.locations[0]!.id}/store-list`, { token: await api.ownerToken(none) })).body).toEqual({ data: [] });
  });

  test("delivery-b refusing the account's token is a 409 to connect the account again, never a 5xx", async () => {
    const now = new Date();
    await api.deps.db
      .insertInto('integration_connections')
      .values({ id: Bun.randomUUIDv7(), provider: 'delivery-b-account', external_ref: `acct-revoked-${now.getTime()}`, merchant_id: none.merchant.id, status: 'active', access_token_encrypted: encryptSecret(parseTokenKey(TOKEN_KEY)!, 'at_revoked_at_delivery_b'), settings: JSON.stringify({}), connected_at: now, created_at: now, updated_at: now })
      .execute();
    const r = await api.call('GET', `/api/back-office/delivery-b/${none.locations[0]!.id}/store-list`, { token: await api.ownerToken(none) });
    expect(r).toMatchObject({ status: 409, body: { message: 'delivery-b refused the access of the connected account; connect the delivery-b account again.', reason: 'provider_token_rejected' } });
  });
});

describe("the delivery-b account's access token is refreshed with its refresh token (as register-c's)", () => {
  /** A merchant whose account is connected through the real OAuth callback, owning store `store`. */
  const connectThroughOAuth = async (label: string, store: string) => {
    const merchant = await api.seed(label);
    const token = await api.ownerToken(merchant);
    const account = `acct-${label}-${crypto.randomUUID().slice(0, 6)}`;
    sim.addStore(store, `Store ${label}`, account);
    const started = await api.call('POST', `/api/back-office/delivery-b/${merchant.locations[0]!.id}/oauth`, { token });
    const code = oauth.issueCode({ accountId: account });
    expect((await api.call('GET', `/api/delivery-b/callback?${new URLSearchParams({ code, state: started.body.data.state })}`)).status).toBe(200);
    const issued = oauth.issued.find((i) => i.code === code)!;
    const row = () => api.deps.db.selectFrom('integration_connections').select(['id', 'access_token_encrypted', 'refresh_token_encrypted', 'token_expires_at', 'token_refresh_until']).where('merchant_id', '=', merchant.merchant.id).where('provider', '=', 'delivery-b-account').executeTakeFirstOrThrow();
    const stored = async () => {
      const r = await row();
      return { access: decryptSecret(parseTokenKey(TOKEN_KEY)!, r.access_token_encrypted!), refresh: decryptSecret(parseTokenKey(TOKEN_KEY)!, r.refresh_token_encrypted!), lease: r.token_refresh_until };
    };
    return { merchant, token, issued, row, stored, list: () => api.call('GET', `/api/back-office/delivery-b/${merchant.locations[0]!.id}/store-list`, { token }) };
  };
  const refreshes = () => oauth.tokenRequests.filter((g) => g === 'refresh_token').length;

  test('an access token delivery-b refuses (expired) is refreshed once and the call answered; the rotated tokens are stored', async () => {
    const c = await connectThroughOAuth('dbb-refresh-401', 'adv-store-r1');
    oauth.expireAccessToken(c.issued.accessToken);
    const before = refreshes();
    const r = await c.list();
    expect(r).toMatchObject({ status: 200, body: { data: [{ id: 'adv-store-r1', name: 'Store dbb-refresh-401', selected: false }] } });
    expect(refreshes()).toBe(before + 1);
    const fresh = oauth.issued[oauth.issued.length - 1]!;
    expect(fresh).toMatchObject({ grant: 'refresh_token', accountId: c.issued.accountId });
    expect(await c.stored()).toEqual({ access: fresh.accessToken, refresh: fresh.refreshToken, lease: null });
    // The next call uses the stored token: no refresh again.
    expect((await c.list()).status).toBe(200);
    expect(refreshes()).toBe(before + 1);
  });

  test('a token about to expire is refreshed before it is used', async () => {
    const c = await connectThroughOAuth('dbb-refresh-soon', 'adv-store-r2');
    await api.deps.db.updateTable('integration_connections').set({ token_expires_at: new Date(Date.now() + 10_000) }).where('id', '=', (await c.row()).id).execute();
    const before = refreshes();
    expect((await c.list()).status).toBe(200);
    expect(refreshes()).toBe(before + 1);
    const fresh = oauth.issued[oauth.issued.length - 1]!;
    expect((await c.stored()).access).toBe(fresh.accessToken);
    expect((await c.row()).token_expires_at!.getTime()).toBeGreaterThan(Date.now() + 3_000_000);
  });

  test('a refused refresh (the app revoked) is still the 409 to connect again, tried once, the tokens left as they were', async () => {
    const c = await connectThroughOAuth('dbb-refresh-revoked', 'adv-store-r3');
    oauth.expireAccessToken(c.issued.accessToken);
    oauth.revokeRefreshToken(c.issued.refreshToken);
    const before = refreshes();
    const r = await c.list();
    expect(r).toMatchObject({ status: 409, body: { message: 'delivery-b refused the access of the connected account; connect the delivery-b account again.', reason: 'provider_token_rejected' } });
    expect(refreshes()).toBe(before + 1);
    expect(await c.stored()).toEqual({ access: c.issued.accessToken, refresh: c.issued.refreshToken, lease: null });
  });
});
