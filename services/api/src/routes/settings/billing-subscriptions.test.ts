import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { ALREADY_CANCELED, NOTHING_TO_RETRY } from '@pos/core/settings/billing-subscriptions';
import { startCardASimulator, type CardASimulator } from '@pos/providers/payments';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { subscribedBillingProfile } from '../../testing/billing-subscriptions.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';

/** Subscription actions, past bills and export through the card-a client against its simulator. */
let api: TestApi;
let cardA: CardASimulator;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
const SECRET = 'sk_test_billing';
const P = '/api/back-office/settings/billing-profiles';
const tdbOf = (m: DemoSeedResult) => bindTenant(api.deps.db, m.merchant.tenant_database);

const subscribed = async (m: DemoSeedResult, customer: string) => subscribedBillingProfile(api, m, m === a ? owner : await api.ownerToken(m), customer);
const localRow = (m: DemoSeedResult, id: string) => tdbOf(m).selectFrom('billing_subscriptions').select(['status', 'cancel_at_period_end']).where('id', '=', id).executeTakeFirstOrThrow();
const sim = (path: string, body: unknown = {}) =>
  fetch(`${cardA.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<{ id: string }>);

beforeAll(async () => {
  cardA = startCardASimulator({ secretKey: SECRET });
  api = await createTestApi({ env: { CARD_A_SECRET_KEY: SECRET, CARD_A_BASE_URL: cardA.url } });
  a = await api.seed('bsub-a');
  b = await api.seed('bsub-b');
  owner = await api.ownerToken(a);
}, 60_000);
afterAll(async () => {
  await api.close();
  await cardA.stop();
});

describe('billing profile subscriptions through card-a', () => {
  test('cancel at period end and reactivate: provider and local record follow', async () => {
    const { profile, local, provider } = await subscribed(a, 'cus_bsub_1');
    const c = await api.call('POST', `${P}/${profile}/subscriptions/${local}/cancel`, { token: owner });
    expect(c.status).toBe(200);
    expect(c.body.data).toMatchObject({ id: local, provider_subscription_id: provider, status: 'active', cancel_at_period_end: true });
    expect(cardA.billing.subscription(provider)).toMatchObject({ status: 'active', cancel_at_period_end: true });
    expect(await localRow(a, local)).toEqual({ status: 'active', cancel_at_period_end: true });

    const r = await api.call('POST', `${P}/${profile}/subscriptions/${local}/reactivate`, { token: owner });
    expect(r).toMatchObject({ status: 200, body: { data: { id: local, status: 'active', cancel_at_period_end: false } } });
    expect(cardA.billing.subscription(provider)!.cancel_at_period_end).toBe(false);
    expect(await localRow(a, local)).toEqual({ status: 'active', cancel_at_period_end: false });

    // An ended subscription cannot be cancelled or revived.
    await tdbOf(a).updateTable('billing_subscriptions').set({ status: 'canceled' }).where('id', '=', local).execute();
    for (const action of ['cancel', 'reactivate', 'retry-payment']) {
      expect(await api.call('POST', `${P}/${profile}/subscriptions/${local}/${action}`, { token: owner })).toMatchObject({ status: 422, body: { message: ALREADY_CANCELED } });
    }
    expect(cardA.billing.subscription(provider)!.cancel_at_period_end).toBe(false);
  });

  test('a subscription card-a deleted while the cancel was answered stays canceled: 422, never revived by the earlier answer', async () => {
    const { profile, local } = await subscribed(a, 'cus_bsub_race');
    const client = api.deps.payments.cardA!;
    const real = client.setCancelAtPeriodEnd;
    // card-a answers (active, cancel at period end), then its `deleted` event is handled before the route writes that answer.
    client.setCancelAtPeriodEnd = async (...args: Parameters<typeof real>) => {
      const answer = await real.apply(client, args);
      await tdbOf(a).updateTable('billing_subscriptions').set({ status: 'canceled' }).where('id', '=', local).execute();
      return answer;
    };
    try {
      // Before: 200 with status active, and the record active for good though card-a had deleted it.
      expect(await api.call('POST', `${P}/${profile}/subscriptions/${local}/cancel`, { token: owner })).toMatchObject({ status: 422, body: { message: ALREADY_CANCELED } });
      expect((await localRow(a, local)).status).toBe('canceled');
    } finally {
      client.setCancelAtPeriodEnd = real;
    }
  });

  test('retry payment pays the open bill; past bills and their export', async () => {
    const { profile, local, provider } = await subscribed(a, 'cus_bsub_2');
    expect(await api.call('POST', `${P}/${profile}/subscriptions/${local}/retry-payment`, { token: owner })).toMatchObject({ status: 422, body: { message: NOTHING_TO_RETRY } });
    const invoice = await sim(`/_sim/subscriptions/${provider}/invoice-failed`, { amount: 4900 });
    await tdbOf(a).updateTable('billing_subscriptions').set({ status: 'past_due' }).where('id', '=', local).execute();

    const before = await api.call('GET', `${P}/${profile}/past-bills`, { token: owner });
    expect(before.body).toEqual({ data: [{ id: invoice.id, subscription: provider, status: 'open', amount_due: 4900, attempt_count: 1, created_at: expect.any(String) }] });

    const r = await api.call('POST', `${P}/${profile}/subscriptions/${local}/retry-payment`, { token: owner });
    expect(r).toMatchObject({ status: 200, body: { data: { id: local, status: 'active', cancel_at_period_end: false } } });
    expect(cardA.billing.invoice(invoice.id)).toMatchObject({ status: 'paid', attempt_count: 2 });
    expect(await localRow(a, local)).toEqual({ status: 'active', cancel_at_period_end: false });

    const bills = await api.call('GET', `${P}/${profile}/past-bills`, { token: owner });
    expect(bills.body.data).toEqual([{ id: invoice.id, subscription: provider, status: 'paid', amount_due: 4900, attempt_count: 2, created_at: before.body.data[0].created_at }]);
    const res = await api.call('GET', `${P}/${profile}/export`, { token: owner });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.text.replace(/^\uFEFF/, '')).toBe(`id,subscription,status,amount_due,attempt_count,created_at\n"${invoice.id}","${provider}","paid","4900","2","${before.body.data[0].created_at}"\n`);
  });

  test('retry payment twice at once: the bill is paid once, one 200 and one 422 no unpaid bill (never payment failed)', async () => {
    for (let k = 0; k < 4; k++) {
      const { profile, local, provider } = await subscribed(a, `cus_bsub_retry${k}`);
      const invoice = await sim(`/_sim/subscriptions/${provider}/invoice-failed`, { amount: 4900 });
      await tdbOf(a).updateTable('billing_subscriptions').set({ status: 'past_due' }).where('id', '=', local).execute();
      const rs = await Promise.all([0, 1].map(() => api.call('POST', `${P}/${profile}/subscriptions/${local}/retry-payment`, { token: owner })));
      expect(rs.map((r) => r.status).sort()).toEqual([200, 422]);
      expect(rs.find((r) => r.status === 422)!.body).toMatchObject({ message: NOTHING_TO_RETRY });
      expect(rs.find((r) => r.status === 200)!.body).toMatchObject({ data: { id: local, status: 'active' } });
      expect(cardA.billing.invoice(invoice.id)).toMatchObject({ status: 'paid', attempt_count: 2 });
    }
  });

  test('cancel and reactivate sent together take turns: the stored flag is what card-a applied last, every round', async () => {
    const { profile, local, provider } = await subscribed(a, 'cus_bsub_together');
    const act = (action: string) => api.call('POST', `${P}/${profile}/subscriptions/${local}/${action}`, { token: owner });
    for (let round = 0; round < 20; round++) {
      // card-a answers the first change it receives late: before, that answer was written over the second's.
      cardA.billing.delayUpdateAnswer(provider, 150);
      const [c, r] = await Promise.all([act('cancel'), act('reactivate')]);
      expect([c.status, c.body.data?.cancel_at_period_end, r.status, r.body.data?.cancel_at_period_end]).toEqual([200, true, 200, false]);
      expect([round, (await localRow(a, local)).cancel_at_period_end]).toEqual([round, cardA.billing.subscription(provider)!.cancel_at_period_end]);
    }
  });

  test('permissions, another profile\'s or merchant\'s subscription is a 404, nothing sent to card-a', async () => {
    const mine = await subscribed(a, 'cus_bsub_3');
    const other = await subscribed(a, 'cus_bsub_4');
    const theirs = await subscribed(b, 'cus_bsub_5');
    for (const path of [
      `/${mine.profile}/subscriptions/${other.local}/cancel`,
      `/${mine.profile}/subscriptions/${crypto.randomUUID()}/cancel`,
      `/${mine.profile}/subscriptions/not-an-id/reactivate`,
    ]) {
      expect(await api.call('POST', `${P}${path}`, { token: owner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the subscription you requested.' } });
    }
    for (const path of [`/${theirs.profile}/subscriptions/${theirs.local}/cancel`, `/${theirs.profile}/past-bills`, `/${theirs.profile}/export`]) {
      const m = path.endsWith('cancel') ? 'POST' : 'GET';
      expect(await api.call(m, `${P}${path}`, { token: owner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the billing profile you requested.' } });
    }
    expect(cardA.billing.subscription(other.provider)!.cancel_at_period_end).toBe(false);
    expect(cardA.billing.subscription(theirs.provider)!.cancel_at_period_end).toBe(false);

    const viewer = await limitedUserToken(api, a, ['VIEW_BILLING_PROFILES'], []);
    expect((await api.call('GET', `${P}/${mine.profile}/past-bills`, { token: viewer })).status).toBe(200);
    expect(await api.call('POST', `${P}/${mine.profile}/subscriptions/${mine.local}/cancel`, { token: viewer })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    const nobody = await limitedUserToken(api, a, [], []);
    expect((await api.call('GET', `${P}/${mine.profile}/past-bills`, { token: nobody })).status).toBe(403);
    expect(cardA.billing.subscription(mine.provider)!.cancel_at_period_end).toBe(false);
    expect(await localRow(a, mine.local)).toEqual({ status: 'active', cancel_at_period_end: false });
  });
});
