import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { mintOAuthState } from '@pos/core/integrations/oauth-state';
import { startOAuthSimulator, type OAuthSimulator } from '@pos/providers/oauth/oauth-simulator';
import { startDeliveryBSimulator, type DeliveryBSimulator } from '@pos/providers/delivery-b/delivery-b-simulator';
import type { TestApi } from '../../testing/harness.ts';
import { rivalMerchants, type RivalMerchants } from '../../testing/rival-merchants.ts';

// The delivery-b OAuth callback writes the same rows as the store connect (provider delivery-b, keyed by
// the account / store id, at the state's location): it takes the same claim (decisions: "Connecting a
// marketplace store concurrently").
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
  stores = startDeliveryBSimulator({ apiToken: 'db-cb-token' });
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
const activeAt = (m: DemoSeedResult, location: string) =>
  api.deps.db.selectFrom('integration_connections').select('external_ref').where('provider', '=', 'delivery-b').where('merchant_id', '=', m.merchant.id).where('location_id', '=', location).where('status', '=', 'active').execute();
const crossed = () => rivals.crossed('delivery-b');

describe('delivery-b OAuth callback: concurrent connects', () => {
  test('two merchants\' callbacks for one account at once: one 200, one 409 integration_taken (never a 500)', async () => {
    const outcomes: number[][] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const account = `cb-acct-${crypto.randomUUID().slice(0, 8)}`;
      const [ra, rb] = await Promise.all([callback(a, a.locations[0]!.id, account), callback(b, b.locations[0]!.id, account)]);
      outcomes.push([ra.status, rb.status].sort());
      expect(ra.status === 409 ? ra : rb).toMatchObject({ status: 409, body: { reason: 'integration_taken' } });
    }
    expect(await crossed()).toEqual([]);
    expect(outcomes).toEqual(Array.from({ length: ROUNDS }, () => [200, 409]));
  });

  test('a double callback (two states) of one merchant for one account: one row, never a 500', async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const account = `cb-twice-${crypto.randomUUID().slice(0, 8)}`;
      const answers = await Promise.all([callback(a, a.locations[0]!.id, account), callback(a, a.locations[0]!.id, account)]);
      for (const r of answers) if (r.status !== 200) expect(r).toMatchObject({ status: 409, body: { reason: 'integration_busy' } });
      expect(answers.some((r) => r.status === 200)).toBe(true);
      expect(await activeAt(a, a.locations[0]!.id)).toEqual([{ external_ref: account }]);
    }
  });

  test('a callback racing a store connect of one location: the location ends with one active store', async () => {
    const loc = a.locations[1]!.id;
    for (let i = 0; i < ROUNDS; i++) {
      const answers = await Promise.all([
        api.call('POST', `/api/back-office/delivery-b/${loc}`, { token: tokA, body: { store_id: `cb-mixed-${i}` } }),
        callback(a, loc, `cb-oauth-${crypto.randomUUID().slice(0, 8)}`),
      ]);
      for (const r of answers) if (r.status !== 200) expect(r).toMatchObject({ status: 409, body: { reason: 'integration_busy' } });
      expect((await activeAt(a, loc)).length).toBe(1);
    }
  });

  test('a callback for a store another merchant is connecting right now (its claim held): 409, nothing written', async () => {
    const account = `cb-held-${crypto.randomUUID().slice(0, 8)}`;
    await api.deps.db.insertInto('integration_connect_claims').values({ provider: 'delivery-b', external_ref: account, merchant_id: b.merchant.id, location_id: b.locations[1]!.id, claimed_until: new Date(Date.now() + 60_000) }).execute();
    expect(await callback(a, a.locations[0]!.id, account)).toMatchObject({ status: 409, body: { reason: 'integration_taken' } });
    expect(await api.deps.db.selectFrom('integration_connections').select('id').where('provider', '=', 'delivery-b').where('external_ref', '=', account).execute()).toEqual([]);
    await api.deps.db.deleteFrom('integration_connect_claims').where('external_ref', '=', account).execute();
  });
});
