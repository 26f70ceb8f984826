import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { CARD_DECLINED, NO_SAVED_CARD } from '@pos/core/generation/ai-credit-purchases';
import { startCardASimulator, type CardASimulator } from '@pos/providers/payments';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/**
 * Buying AI photo credits through card-a (its simulator over HTTP, its signed webhooks delivered to
 * the running API): the hosted checkout credits once when its webhook arrives, even delivered twice;
 * the saved card credits at once; a decline credits nothing.
 */
let api: TestApi;
let sim: CardASimulator;
let server: { stop(): unknown };
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
const SECRET = 'whsec_credits_0123456789';
const CREDS = { CARD_A_SECRET_KEY: 'sk_test_credits' };
const P = '/api/back-office/ai-photo';
const tdbOf = (m: DemoSeedResult) => bindTenant(api.deps.db, m.merchant.tenant_database);
const balance = async (token = owner) => (await api.call('GET', `${P}/credits`, { token })).body.data.balance as number;
const purchase = (m: DemoSeedResult, id: string) => tdbOf(m).selectFrom('ai_credit_purchases').select(['status', 'method', 'credits', 'amount', 'provider_ref']).where('id', '=', id).executeTakeFirstOrThrow();

async function eventually<T>(fn: () => Promise<T>, until: (v: T) => boolean, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (until(v) || Date.now() > end) return v;
    await Bun.sleep(50);
  }
}

/** A billing profile of `m` whose card-a customer has `card` as default (attached through the API). */
async function savedCard(m: DemoSeedResult, token: string, card: string): Promise<string> {
  const id = (await api.call('POST', '/api/back-office/settings/billing-profiles', { token, body: { name: `Billing ${card}` } })).body.data.id as string;
  expect((await api.call('POST', `/api/back-office/settings/billing-profiles/${id}`, { token, body: { payment_method: card } })).status).toBe(200);
  return id;
}

beforeAll(async () => {
  sim = startCardASimulator({ secretKey: CREDS.CARD_A_SECRET_KEY, webhookSecret: SECRET });
  api = await createTestApi({ env: { ...CREDS, CARD_A_BASE_URL: sim.url, CARD_A_WEBHOOK_SECRET: SECRET, APP_URL: 'https://app.example.test' } });
  // The API listens on a port the system picks (a port probed and released first could be taken meanwhile: EADDRINUSE in CI); the simulator is told it after.
  server = api.app.listen({ port: 0, hostname: '127.0.0.1' });
  sim.setWebhookUrl(`http://127.0.0.1:${api.app.server!.port}/api/card-a-webhook/BE`);
  a = await api.seed('credits-a');
  b = await api.seed('credits-b');
  owner = await api.ownerToken(a);
}, 60_000);

afterAll(async () => {
  await sim.idle();
  await server.stop();
  await api.close();
  await sim.stop();
});

describe('POST /ai-photo/create-checkout-url', () => {
  test('the hosted page for the package; paid, its signed webhook credits the package once, even delivered twice', async () => {
    const before = await balance();
    const r = await api.call('POST', `${P}/create-checkout-url`, { token: owner, body: { package_id: 'medium' } });
    expect(r.status).toBe(200);
    const { purchase_id, url } = r.body.data;
    const session = url.split('/').at(-1) as string;
    expect(url).toBe(`${sim.url}/_sim/checkout/${session}`);
    expect(await purchase(a, purchase_id)).toEqual({ status: 'pending', method: 'checkout', credits: 50, amount: 2000, provider_ref: session });
    expect(await balance()).toBe(before);

    // The merchant pays on the hosted page: checkout.session.completed and payment_intent.succeeded both arrive.
    expect((await fetch(`${sim.url}/_sim/checkout/${session}/pay`, { method: 'POST' })).status).toBe(200);
    await sim.idle();
    expect(await eventually(() => balance(), (v) => v === before + 50)).toBe(before + 50);
    expect((await purchase(a, purchase_id)).status).toBe('paid');
    // The provider sends the completion again: nothing more is credited.
    const completed = sim.webhooks.map((w) => w.body as { type: string; data: { object: { id: string } } }).find((w) => w.type === 'checkout.session.completed' && w.data.object.id === session)!;
    await sim.sendEvent('checkout.session.completed', completed.data.object);
    await sim.idle();
    expect(await balance()).toBe(before + 50);
    const logs = await api.deps.db.selectFrom('webhook_logs').select('status').where('provider', '=', 'card-a').where('event_type', '=', 'checkout.session.completed').where(({ ref }) => ref('payload'), 'is not', null).execute();
    expect(logs.filter((l) => l.status === 'processed').length).toBeGreaterThanOrEqual(2);
  });

  test('an unknown package is 422 and nothing is written; explicit return URLs reach the provider', async () => {
    const count = async () => (await tdbOf(a).selectFrom('ai_credit_purchases').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n;
    const n = await count();
    expect((await api.call('POST', `${P}/create-checkout-url`, { token: owner, body: { package_id: 'huge' } })).status).toBe(422);
    expect((await api.call('POST', `${P}/create-checkout-url`, { token: owner, body: { package_id: 'small', success_url: 'javascript:alert(1)' } })).status).toBe(422);
    expect(await count()).toBe(n);
    const r = await api.call('POST', `${P}/create-checkout-url`, { token: owner, body: { package_id: 'small', success_url: 'https://shop.example/ok', cancel_url: 'https://shop.example/no' } });
    expect(r.status).toBe(200);
  });
});

describe('POST /ai-photo/purchase-with-default', () => {
  test('without a saved card: 422 and no purchase', async () => {
    const other = await api.ownerToken(b);
    expect(await api.call('POST', `${P}/purchase-with-default`, { token: other, body: { package_id: 'small' } })).toMatchObject({ status: 422, body: { message: NO_SAVED_CARD } });
    expect(await tdbOf(b).selectFrom('ai_credit_purchases').selectAll().execute()).toEqual([]);
  });

  test('the saved card is charged and the package credited at once; the provider\'s webhook adds nothing', async () => {
    const profile = await savedCard(a, owner, 'pm_card_visa');
    const before = await balance();
    const r = await api.call('POST', `${P}/purchase-with-default`, { token: owner, body: { package_id: 'small', billing_profile_id: profile } });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ purchase_id: expect.any(String), credits: 10, balance: before + 10 });
    expect(await purchase(a, r.body.data.purchase_id)).toMatchObject({ status: 'paid', method: 'saved_card', provider_ref: expect.stringMatching(/^pi_/) });
    await sim.idle();
    expect(await balance()).toBe(before + 10);
  });

  test('a declined card: 422, nothing credited, the purchase failed; another merchant\'s billing profile is a 404', async () => {
    const profile = await savedCard(a, owner, 'pm_card_chargeDeclined');
    const before = await balance();
    const r = await api.call('POST', `${P}/purchase-with-default`, { token: owner, body: { package_id: 'large', billing_profile_id: profile } });
    expect(r).toMatchObject({ status: 422, body: { message: CARD_DECLINED } });
    expect(await balance()).toBe(before);
    const failed = await tdbOf(a).selectFrom('ai_credit_purchases').select('status').where('credits', '=', 200).execute();
    expect(failed).toEqual([{ status: 'failed' }]);
    const theirs = (await api.call('POST', '/api/back-office/settings/billing-profiles', { token: await api.ownerToken(b), body: { name: 'Theirs' } })).body.data.id as string;
    expect((await api.call('POST', `${P}/purchase-with-default`, { token: owner, body: { package_id: 'small', billing_profile_id: theirs } })).status).toBe(404);
  });
});
