import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { CARD_B_ACCOUNT_TAKEN, NO_CARD_A_ACCOUNT } from '@pos/core/settings/payment-profile-accounts';
import { startCardASimulator, type CardASimulator } from '@pos/providers/payments';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';

/** Payment profile provider accounts and the billing payment method, through the card-a client against its simulator over HTTP. */
let api: TestApi;
let cardA: CardASimulator;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
const SECRET = 'sk_test_accounts';
const PP = '/api/back-office/settings/payment-profiles';
const BP = '/api/back-office/settings/billing-profiles';
const tdbOf = (m: DemoSeedResult) => bindTenant(api.deps.db, m.merchant.tenant_database);
const sim = (path: string, body: unknown = {}) => fetch(`${cardA.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());

async function profile(name: string, token = owner): Promise<string> {
  const r = await api.call('POST', PP, { token, body: { name } });
  expect(r.status).toBe(201);
  return r.body.data.id;
}

/** A profile whose onboarding started: it has a connected account at the simulator. */
async function onboarded(name: string): Promise<{ id: string; account: string }> {
  const id = await profile(name);
  const r = await api.call('POST', `${PP}/${id}/card-a/url`, { token: owner, body: {} });
  expect(r.status).toBe(200);
  return { id, account: r.body.data.account_id };
}

beforeAll(async () => {
  cardA = startCardASimulator({ secretKey: SECRET });
  api = await createTestApi({ env: { CARD_A_SECRET_KEY: SECRET, CARD_A_BASE_URL: cardA.url, APP_URL: 'https://app.example.test' } });
  a = await api.seed('ppacct-a');
  b = await api.seed('ppacct-b');
  owner = await api.ownerToken(a);
}, 60_000);

afterAll(async () => {
  await api.close();
  await cardA.stop();
});

describe('card-a connected account of a payment profile', () => {
  test('the onboarding link creates the account once, stores it and points back at the back office', async () => {
    const id = await profile('Shop payments');
    const first = await api.call('POST', `${PP}/${id}/card-a/url`, { token: owner, body: {} });
    expect(first.status).toBe(200);
    const account = first.body.data.account_id as string;
    expect(account).toMatch(/^acct_/);
    expect(first.body.data.url).toBe(`${cardA.url}/_sim/onboarding/${account}?return_url=${encodeURIComponent(`https://app.example.test/settings/payment-profiles/${id}`)}`);
    expect(first.body.data.expires_at).toEqual(expect.any(String));
    expect(cardA.connect.account(account)).toMatchObject({ type: 'express', country: 'BE', metadata: { merchant_id: a.merchant.id, payment_profile_id: id }, details_submitted: false });

    // Again (the link expired): the same account, a new link; explicit URLs and country are passed on.
    const again = await api.call('POST', `${PP}/${id}/card-a/url`, { token: owner, body: { return_url: 'https://shop.example/done', refresh_url: 'https://shop.example/retry' } });
    expect(again.body.data.account_id).toBe(account);
    expect(again.body.data.url).toContain(encodeURIComponent('https://shop.example/done'));
    expect((await api.call('GET', `${PP}/${id}`, { token: owner })).body.data).toMatchObject({ id, card_a_account_id: account, card_b_account_id: null });
  });

  test('account session: a client secret for the embedded components; 422 before onboarding', async () => {
    const fresh = await profile('Not yet');
    expect(await api.call('POST', `${PP}/${fresh}/card-a/account-session`, { token: owner })).toMatchObject({ status: 422, body: { message: NO_CARD_A_ACCOUNT } });
    const { id, account } = await onboarded('Session');
    const r = await api.call('POST', `${PP}/${id}/card-a/account-session`, { token: owner });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: { account_id: account, client_secret: expect.stringMatching(/^accs_.+_secret_/), expires_at: expect.any(String) } });
  });

  test('payouts: one provider page newest first with a cursor, and a numbered data table', async () => {
    const { id, account } = await onboarded('Payouts');
    const base = Math.floor(Date.parse('2026-11-01T00:00:00Z') / 1000);
    await sim(`/_sim/accounts/${account}/payouts`, { payouts: Array.from({ length: 12 }, (_, i) => ({ amount: 1000 + i, created: base + i * 86_400, arrival_date: base + (i + 2) * 86_400, description: `Payout ${i}` })) });
    const page1 = await api.call('GET', `${PP}/${id}/card-a/payouts?limit=5`, { token: owner });
    expect(page1.status).toBe(200);
    expect(page1.body.has_more).toBe(true);
    expect(page1.body.data.map((p: { amount: number }) => p.amount)).toEqual([1011, 1010, 1009, 1008, 1007]);
    expect(page1.body.data[0]).toEqual({
      id: expect.stringMatching(/^po_/),
      amount: 1011,
      currency: 'EUR',
      status: 'paid',
      description: 'Payout 11',
      arrival_date: new Date((base + 13 * 86_400) * 1000).toISOString(),
      created_at: new Date((base + 11 * 86_400) * 1000).toISOString(),
    });
    const page3 = await api.call('GET', `${PP}/${id}/card-a/payouts?limit=5&starting_after=${page1.body.data[4].id}`, { token: owner });
    expect(page3.body.data.map((p: { amount: number }) => p.amount)).toEqual([1006, 1005, 1004, 1003, 1002]);
    const table = await api.call('GET', `${PP}/${id}/card-a/payouts/datatable?page=3&per_page=5`, { token: owner });
    expect(table.status).toBe(200);
    expect(table.body).toMatchObject({ total: 12, page: 3, per_page: 5 });
    expect(table.body.data.map((p: { amount: number }) => p.amount)).toEqual([1001, 1000]);
    // A cursor the provider does not know is its refusal, 422.
    expect((await api.call('GET', `${PP}/${id}/card-a/payouts?starting_after=po_unknown`, { token: owner })).status).toBe(422);
    expect((await api.call('GET', `${PP}/${id}/card-a/payouts?limit=101`, { token: owner })).status).toBe(422);
  });

  test('descriptor, website and payout schedule are written at card-a, validated as it does', async () => {
    const { id, account } = await onboarded('Settings');
    const d = await api.call('PUT', `${PP}/${id}/card-a/descriptor`, { token: owner, body: { statement_descriptor: 'CAFE CENTRAL' } });
    expect(d.status).toBe(200);
    expect(d.body.data).toMatchObject({ account_id: account, statement_descriptor: 'CAFE CENTRAL' });
    // The provider's rule (a letter, no quotes): its message, 422, nothing changed.
    const digits = await api.call('PUT', `${PP}/${id}/card-a/descriptor`, { token: owner, body: { statement_descriptor: '12345' } });
    expect(digits).toMatchObject({ status: 422, body: { message: 'The statement descriptor must contain at least one letter.' } });
    expect((await api.call('PUT', `${PP}/${id}/card-a/descriptor`, { token: owner, body: { statement_descriptor: 'abc' } })).status).toBe(422);
    expect(cardA.connect.account(account)!.settings.payments.statement_descriptor).toBe('CAFE CENTRAL');

    const w = await api.call('PUT', `${PP}/${id}/card-a/business-website`, { token: owner, body: { url: 'https://cafe.example' } });
    expect(w.body.data.business_website).toBe('https://cafe.example');
    expect((await api.call('PUT', `${PP}/${id}/card-a/business-website`, { token: owner, body: { url: 'cafe.example' } })).status).toBe(422);

    const weekly = await api.call('PUT', `${PP}/${id}/card-a/payout-schedule`, { token: owner, body: { interval: 'weekly', weekly_anchor: 'friday' } });
    expect(weekly.body.data.payout_schedule).toEqual({ interval: 'weekly', weekly_anchor: 'friday', monthly_anchor: null, delay_days: 2 });
    const missing = await api.call('PUT', `${PP}/${id}/card-a/payout-schedule`, { token: owner, body: { interval: 'monthly' } });
    expect(missing).toMatchObject({ status: 422, body: { errors: { monthly_anchor: ['The monthly anchor field is required when interval is monthly.'] } } });
    const monthly = await api.call('PUT', `${PP}/${id}/card-a/payout-schedule`, { token: owner, body: { interval: 'monthly', monthly_anchor: 15, weekly_anchor: 'monday' } });
    expect(monthly.body.data.payout_schedule).toEqual({ interval: 'monthly', weekly_anchor: null, monthly_anchor: 15, delay_days: 2 });
    expect((await api.call('PUT', `${PP}/${id}/card-a/payout-schedule`, { token: owner, body: { interval: 'hourly' } })).status).toBe(422);
  });

  test('the card-b account: stored on the profile, one profile per account', async () => {
    const one = await profile('Terminals one');
    const two = await profile('Terminals two');
    const r = await api.call('POST', `${PP}/${one}/card-b/account`, { token: owner, body: { account_id: 'cb-merchant-77' } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: one, card_b_account_id: 'cb-merchant-77' });
    const taken = await api.call('POST', `${PP}/${two}/card-b/account`, { token: owner, body: { account_id: 'cb-merchant-77' } });
    expect(taken).toMatchObject({ status: 422, body: { errors: { account_id: ['This card-b account belongs to another payment profile.'] } } });
    expect((await api.call('POST', `${PP}/${two}/card-b/account`, { token: owner, body: { account_id: 'has spaces' } })).status).toBe(422);
  });

  test('the same card-b account sent to two profiles at once: one 200, the other the 422 on account_id; one profile holds it', async () => {
    for (let k = 0; k < 5; k++) {
      const x = await profile(`CB x${k}`);
      const y = await profile(`CB y${k}`);
      const acct = `cb_acct_${crypto.randomUUID().slice(0, 8)}`;
      const rs = await Promise.all([x, y].map((id) => api.call('POST', `${PP}/${id}/card-b/account`, { token: owner, body: { account_id: acct } })));
      expect(rs.map((r) => r.status).sort()).toEqual([200, 422]);
      expect(rs.find((r) => r.status === 422)!.body).toMatchObject({ errors: { account_id: [CARD_B_ACCOUNT_TAKEN] } });
      expect(await tdbOf(a).selectFrom('payment_profiles').select('id').where('card_b_account_id', '=', acct).execute()).toHaveLength(1);
    }
  });

  test('permissions and isolation: VIEW for the session and payouts, EDIT for changes; another merchant\'s profile is a 404 and nothing reaches card-a', async () => {
    const { id } = await onboarded('Guarded');
    const viewer = await limitedUserToken(api, a, ['VIEW_PAYMENT_PROFILES'], []);
    expect((await api.call('POST', `${PP}/${id}/card-a/account-session`, { token: viewer })).status).toBe(200);
    expect((await api.call('GET', `${PP}/${id}/card-a/payouts`, { token: viewer })).status).toBe(200);
    expect(await api.call('PUT', `${PP}/${id}/card-a/descriptor`, { token: viewer, body: { statement_descriptor: 'VIEWER SET' } })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect((await api.call('POST', `${PP}/${id}/card-a/url`, { token: viewer, body: {} })).status).toBe(403);
    expect((await api.call('POST', `${PP}/${id}/card-b/account`, { token: viewer, body: { account_id: 'x1' } })).status).toBe(403);
    const nobody = await limitedUserToken(api, a, [], []);
    expect((await api.call('POST', `${PP}/${id}/card-a/account-session`, { token: nobody })).status).toBe(403);

    const other = await api.ownerToken(b);
    for (const [method, path, body] of [
      ['POST', `${PP}/${id}/card-a/url`, {}],
      ['POST', `${PP}/${id}/card-a/account-session`, undefined],
      ['GET', `${PP}/${id}/card-a/payouts`, undefined],
      ['GET', `${PP}/${id}/card-a/payouts/datatable`, undefined],
      ['PUT', `${PP}/${id}/card-a/descriptor`, { statement_descriptor: 'OTHER SHOP' }],
      ['POST', `${PP}/${id}/card-b/account`, { account_id: 'other-1' }],
    ] as const) {
      expect(await api.call(method, path, { token: other, body })).toMatchObject({ status: 404, body: { message: 'Unable to locate the payment profile you requested.' } });
    }
    expect((await api.call('GET', `${PP}/${id}`, { token: owner })).body.data.card_b_account_id).toBeNull();
  });
});

describe('POST /billing-profiles/{id}: attach a payment method', () => {
  test('the first attach creates the card-a customer; the card becomes its default; a second card replaces it', async () => {
    const created = await api.call('POST', BP, { token: owner, body: { name: 'Head office' } });
    const id = created.body.data.id as string;
    const r = await api.call('POST', `${BP}/${id}`, { token: owner, body: { payment_method: 'pm_card_visa' } });
    expect(r.status).toBe(200);
    const customer = r.body.data.card_a_customer_id as string;
    expect(customer).toMatch(/^cus_/);
    expect(r.body.data).toMatchObject({ id, name: 'Head office', payment_method: { id: expect.stringMatching(/^pm_/), brand: 'visa', last4: '4242', exp_month: 12, exp_year: expect.any(Number) } });
    expect(cardA.connect.customer(customer)).toMatchObject({ name: 'Head office', metadata: { merchant_id: a.merchant.id, billing_profile_id: id }, invoice_settings: { default_payment_method: r.body.data.payment_method.id } });

    const second = await api.call('POST', `${BP}/${id}`, { token: owner, body: { payment_method: 'pm_card_mastercard' } });
    expect(second.body.data).toMatchObject({ card_a_customer_id: customer, payment_method: { brand: 'mastercard', last4: '4444' } });
    expect(cardA.connect.customer(customer)!.invoice_settings.default_payment_method).toBe(second.body.data.payment_method.id);
    const row = await tdbOf(a).selectFrom('billing_profiles').select('card_a_customer_id').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.card_a_customer_id).toBe(customer);
  });

  test('an unknown method is the provider\'s 422; bad input 422; EDIT_BILLING_PROFILES; another merchant\'s profile 404', async () => {
    const id = (await api.call('POST', BP, { token: owner, body: { name: 'Branch' } })).body.data.id as string;
    expect(await api.call('POST', `${BP}/${id}`, { token: owner, body: { payment_method: 'pm_unknown' } })).toMatchObject({ status: 422, body: { message: "No such PaymentMethod: 'pm_unknown'" } });
    expect((await api.call('POST', `${BP}/${id}`, { token: owner, body: { payment_method: 'card' } })).status).toBe(422);
    expect((await api.call('POST', `${BP}/${id}`, { token: owner, body: {} })).status).toBe(422);
    const viewer = await limitedUserToken(api, a, ['VIEW_BILLING_PROFILES'], []);
    expect((await api.call('POST', `${BP}/${id}`, { token: viewer, body: { payment_method: 'pm_card_visa' } })).status).toBe(403);
    expect(await api.call('POST', `${BP}/${id}`, { token: await api.ownerToken(b), body: { payment_method: 'pm_card_visa' } })).toMatchObject({ status: 404, body: { message: 'Unable to locate the billing profile you requested.' } });
  });

  // Spec 1 section 5: permissions are scoped to the granted locations. The customer's default card pays
  // every subscription of the profile (they are created without a method of their own), so changing it
  // needs each location those subscriptions pay for within the caller's grant, as cancelling one does.
  test('a member granted loc1 changes no card paying loc0\'s subscriptions: 403, the default card stays; within the grant 200', async () => {
    const [loc0, loc1] = [a.locations[0]!.id, a.locations[1]!.id];
    const id = (await api.call('POST', BP, { token: owner, body: { name: 'Chain billing' } })).body.data.id as string;
    const first = await api.call('POST', `${BP}/${id}`, { token: owner, body: { payment_method: 'pm_card_visa' } });
    const customer = first.body.data.card_a_customer_id as string;
    const card = first.body.data.payment_method.id as string;
    const sub = Bun.randomUUIDv7();
    await tdbOf(a)
      .insertInto('billing_subscriptions')
      .values({ id: sub, provider_subscription_id: `sub_${sub.slice(-12)}`, customer_id: customer, location_id: loc0, price_id: 'price_kiosk', device_ids: JSON.stringify([]), status: 'active', current_period_end: null, cancel_reason: null, canceled_at: null, payment_method_id: null, mandate_id: null, recovered_by: null, event_created: 1 })
      .execute();
    const perms = ['VIEW_BILLING_PROFILES', 'EDIT_BILLING_PROFILES'];
    const member = await limitedUserToken(api, a, perms, [loc1]);
    const refused = await api.call('POST', `${BP}/${id}`, { token: member, body: { payment_method: 'pm_card_chargeDeclined' } });
    expect([refused.status, refused.body]).toEqual([403, { message: 'Unauthorized: Insufficient permissions' }]);
    expect(cardA.connect.customer(customer)!.invoice_settings.default_payment_method).toBe(card);

    // The location's own member may; a profile whose subscriptions have all ended pays no location.
    const local = await limitedUserToken(api, a, perms, [loc0]);
    expect(await api.call('POST', `${BP}/${id}`, { token: local, body: { payment_method: 'pm_card_mastercard' } })).toMatchObject({ status: 200, body: { data: { id, payment_method: { brand: 'mastercard', last4: '4444' } } } });
    await tdbOf(a).updateTable('billing_subscriptions').set({ status: 'canceled' }).where('id', '=', sub).execute();
    expect(await api.call('POST', `${BP}/${id}`, { token: member, body: { payment_method: 'pm_card_visa' } })).toMatchObject({ status: 200, body: { data: { id, payment_method: { brand: 'visa', last4: '4242' } } } });
  });
});
