import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { mintOAuthState } from '@pos/core/integrations/oauth-state';
import { startOAuthSimulator, type OAuthSimulator } from '@pos/providers/oauth/oauth-simulator';
import { startDeliveryBSimulator, type DeliveryBSimulator } from '@pos/providers/delivery-b/delivery-b-simulator';
import type { TestApi } from '../../testing/harness.ts';
import { rivalMerchants, type RivalMerchants } from '../../testing/rival-merchants.ts';

// The delivery-b OAuth callback connects the merchant's delivery-b ACCOUNT (provider `delivery-b-account`,
// keyed by the account id), never a store (provider `delivery-b`, keyed by the store id): concurrent
// callbacks for one account end with one merchant holding it, never a 500, and no store row appears.
const STATE_SECRET = 'oauth-state-secret-0123456789abcdef';
const ROUNDS = 4;
let oauth: OAuthSimulator;
let stores: DeliveryBSimulator;
let rivals: RivalMerchants;
let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let tokA: string;

beforeAll(async () => {
  oauth = startOAuthSimulator({ provider: 'delivery-b', clientId: 'db-client', clientSecret: 'db-client-secret' });
  stores = startDeliveryBSimulator({ apiToken: 'db-cb-token', introspect: { url: oauth.url, clientId: 'db-client', clientSecret: 'db-client-secret' } });
  for (let i = 0; i < ROUNDS; i++) for (const s of [`cb-store-${i}`, `cb-mixed-${i}`]) stores.addStore(s, s);
  const env = {
    INTEGRATION_TOKEN_KEY: 'c'.repeat(64),
    OAUTH_STATE_SECRET: STATE_SECRET,
    DELIVERY_B_OAUTH_URL: oauth.url,
    DELIVERY_B_CLIENT_ID: 'db-client',
    DELIVERY_B_CLIENT_SECRET: 'db-client-secret',
    DELIVERY_B_API_URL: stores.url,
    DELIVERY_B_API_TOKEN: 'db-cb-token',
  };
  rivals = await rivalMerchants(env, 'db-cb', [() => oauth.stop(), () => stores.stop()]);
  ({ api, a, b, tokA } = rivals);
}, 60_000);
afterAll(() => rivals.close());

const callback = (m: DemoSeedResult, location: string, account: string) => {
  const state = mintOAuthState({ secret: STATE_SECRET, provider: 'delivery-b', merchantId: m.merchant.id, locationId: location, now: new Date() }).state;
  return api.call('GET', `/api/delivery-b/callback?${new URLSearchParams({ code: oauth.issueCode({ accountId: account }), state })}`);
};
const accounts = (account: string) => api.deps.db.selectFrom('integration_connections').select(['provider', 'merchant_id', 'location_id', 'status']).where('external_ref', '=', account).execute();

describe('delivery-b OAuth callback: concurrent connects', () => {
  test('two merchants\' callbacks for one account at once: one 200, one 409 integration_taken (never a 500)', async () => {
    const outcomes: number[][] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const account = `cb-acct-${crypto.randomUUID().slice(0, 8)}`;
      const [ra, rb] = await Promise.all([callback(a, a.locations[0]!.id, account), callback(b, b.locations[0]!.id, account)]);
      outcomes.push([ra.status, rb.status].sort());
      expect(ra.status === 409 ? ra : rb).toMatchObject({ status: 409, body: { reason: 'integration_taken' } });
      expect(await accounts(account)).toEqual([{ provider: 'delivery-b-account', merchant_id: (ra.status === 200 ? a : b).merchant.id, location_id: null, status: 'active' }]);
    }
    expect(outcomes).toEqual(Array.from({ length: ROUNDS }, () => [200, 409]));
  });

  test('a double callback (two states) of one merchant for one account: one account row, both 200, no store', async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const account = `cb-twice-${crypto.randomUUID().slice(0, 8)}`;
      const answers = await Promise.all([callback(a, a.locations[0]!.id, account), callback(a, a.locations[0]!.id, account)]);
      expect(answers.map((r) => r.status)).toEqual([200, 200]);
      expect(await accounts(account)).toEqual([{ provider: 'delivery-b-account', merchant_id: a.merchant.id, location_id: null, status: 'active' }]);
    }
  });

  test("a callback racing a store connect of one location: the location keeps the store connected, the callback adds the account only", async () => {
    const loc = a.locations[1]!.id;
    const before = await api.deps.db.selectFrom('integration_connections').select(['external_ref', 'status']).where('provider', '=', 'delivery-b').where('merchant_id', '=', a.merchant.id).execute();
    const account = `cb-oauth-${crypto.randomUUID().slice(0, 8)}`;
    const [connect, cb] = await Promise.all([api.call('POST', `/api/back-office/delivery-b/${loc}`, { token: tokA, body: { store_id: 'cb-mixed-0' } }), callback(a, loc, account)]);
    // No account of `a` owns cb-mixed-0 at delivery-b: the connect is the unknown store's 422 whichever comes first.
    expect([connect.status, cb.status]).toEqual([422, 200]);
    expect(await api.deps.db.selectFrom('integration_connections').select(['external_ref', 'status']).where('provider', '=', 'delivery-b').where('merchant_id', '=', a.merchant.id).execute()).toEqual(before);
    expect(await accounts(account)).toEqual([{ provider: 'delivery-b-account', merchant_id: a.merchant.id, location_id: null, status: 'active' }]);
  });
});
