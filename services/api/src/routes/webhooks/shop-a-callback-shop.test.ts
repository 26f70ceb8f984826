import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { mintOAuthState } from '@pos/core/integrations/oauth-state';
import { startOAuthSimulator, type OAuthSimulator } from '@pos/providers/oauth/oauth-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

// shop-a OAuth callback: the connection is keyed by the callback's `shop` query parameter, which is
// not signed. It must be the shop the authorization code was granted for (the token answer's
// account_id), or a merchant authorizing its own shop could take another's webhooks.
const TOKEN_KEY = 'e'.repeat(64);
const STATE_SECRET = 'oauth-state-secret-probe-0123456789';
const WEBHOOK_SECRET = 'shop-a-webhook-secret-probe';
let sim: OAuthSimulator;
let api: TestApi;
let attacker: DemoSeedResult;
beforeAll(async () => {
  sim = startOAuthSimulator({ provider: 'shop-a', clientId: 'shop-a-client', clientSecret: 'shop-a-client-secret' });
  api = await createTestApi({ env: { INTEGRATION_TOKEN_KEY: TOKEN_KEY, OAUTH_STATE_SECRET: STATE_SECRET, SHOP_A_OAUTH_URL: sim.url, SHOP_A_CLIENT_ID: 'shop-a-client', SHOP_A_CLIENT_SECRET: 'shop-a-client-secret', SHOP_A_WEBHOOK_SECRET: WEBHOOK_SECRET } });
  attacker = await api.seed('shop-a-callback-shop');
}, 60_000);
afterAll(async () => {
  await api.close();
  await sim.stop();
});

describe('shop-a OAuth callback: the shop must be the one the code was granted for', () => {
  test('a code granted for shop X cannot connect shop Y', async () => {
    const own = `own-${crypto.randomUUID().slice(0, 6)}`;
    const victim = `victim-${crypto.randomUUID().slice(0, 6)}`;
    // The attacker's own consent: a code for its own shop.
    const code = sim.issueCode({ accountId: `${own}.myshop-a.com` });
    const state = mintOAuthState({ secret: STATE_SECRET, provider: 'shop-a', merchantId: attacker.merchant.id, locationId: attacker.locations[0]!.id, now: new Date() }).state;
    const r = await api.call('GET', `/api/shop-a-callback?${new URLSearchParams({ code, state, shop: `${victim}.myshop-a.com` })}`);
    const victimConn = await api.deps.db.selectFrom('integration_connections').select(['merchant_id']).where('provider', '=', 'shop-a').where('external_ref', '=', victim).executeTakeFirst();

    // The victim shop's order webhook now lands in the attacker's merchant.
    const raw = JSON.stringify({ id: 4242, name: '#1001', total_price: '99.00', email: 'customer@victim.test', note: victim });
    await api.call('POST', '/api/shop-a-webhook', { rawBody: raw, headers: { 'x-shop-a-topic': 'orders/create', 'x-shop-a-webhook-id': crypto.randomUUID(), 'x-shop-a-shop-domain': `${victim}.myshop-a.com`, 'x-shop-a-hmac-sha256': createHmac('sha256', WEBHOOK_SECRET).update(raw).digest('base64') } });
    const log = await api.deps.db.selectFrom('webhook_logs').select(['merchant_id', 'status']).where('provider', '=', 'shop-a').where('raw_body', '=', raw).executeTakeFirst();

    expect({ callback: r.status, message: r.body.message, victimConnectedTo: victimConn?.merchant_id ?? null, victimWebhookMerchant: log?.merchant_id ?? null }).toEqual({
      callback: 400,
      message: 'The authorization code was not granted for this shop.',
      victimConnectedTo: null,
      victimWebhookMerchant: null,
    });
  });

  test('the shop the code was granted for connects (its domain in the token answer, its name in the connection)', async () => {
    const own = `own-${crypto.randomUUID().slice(0, 6)}`;
    const code = sim.issueCode({ accountId: `${own}.myshop-a.com` });
    const state = mintOAuthState({ secret: STATE_SECRET, provider: 'shop-a', merchantId: attacker.merchant.id, locationId: attacker.locations[0]!.id, now: new Date() }).state;
    const r = await api.call('GET', `/api/shop-a-callback?${new URLSearchParams({ code, state, shop: `${own}.myshop-a.com` })}`);
    expect(r.status).toBe(200);
    const conn = await api.deps.db.selectFrom('integration_connections').select(['merchant_id']).where('provider', '=', 'shop-a').where('external_ref', '=', own).executeTakeFirst();
    expect(conn).toEqual({ merchant_id: attacker.merchant.id });
  });
});
