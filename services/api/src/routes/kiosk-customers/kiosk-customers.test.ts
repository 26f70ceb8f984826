import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { hashLoyaltyToken, issueLoyaltyToken } from '@pos/core/customers/loyalty-tokens';
import { issueGiftCard } from '@pos/core/customers/gift-cards';
import { finalisePayment, defaultFinaliseSteps, listSteps } from '@pos/core/payments/post-capture';
import { createReward } from '@pos/core/customers/rewards';
import { movePoints } from '@pos/core/customers/loyalty';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

// Kiosk customer, loyalty, offers, gift-card and update routes against real PostgreSQL and Redis.
// Payments complete in auto-success mode (no terminal): the loyalty path is what is under test here.
const MANIFEST = { android: { version: '2.4.0', url: 'https://updates.example.com/kiosk-2.4.0.apk', min_version: '2.0.0', notes: 'Faster menus' } };
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let kiosk: string;

beforeAll(async () => {
  api = await createTestApi({ env: { PAYMENT_AUTO_SUCCESS: 'true', KIOSK_UPDATE_MANIFEST: JSON.stringify(MANIFEST) } });
  m = await api.seed('kcust');
  other = await api.seed('kcust-b');
  kiosk = await api.deviceToken(m, 'kiosk');
});
afterAll(() => api.close());

const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);
const post = (path: string, body: unknown, token = kiosk) => api.call('POST', `/api${path}`, { token, deviceKey: true, body });
const get = (path: string, token = kiosk) => api.call('GET', `/api${path}`, { token, deviceKey: true });
const item = (name: string) => m.items.find((i) => i.name === name)!;
const count = async (table: 'customers' | 'loyalty_tokens' | 'loyalty_ledger' | 'customer_timeline' | 'kiosk_push_tokens') =>
  Number((await tdb().selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);

describe('POST /kiosk/customer/identify', () => {
  test('enrols a new customer (phone in the location\'s country, name), answers a token and a masked contact', async () => {
    const r = await post('/kiosk/customer/identify', { phone: '0470 12 34 56', name: 'Anna' });
    expect(r.status).toBe(200);
    const d = r.body.data;
    expect(d.customer).toEqual({ id: expect.any(String), name: 'Anna', email: null, phone: '*********456' });
    expect(d.created).toBe(true);
    expect(d.loyalty).toEqual({ points: 0, lifetime_points: 0, program: { active: true, points_per_euro: 1, rewards: [] } });
    expect(d.loyalty_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(new Date(d.expires_at).getTime() - Date.now()).toBeGreaterThan(14 * 60_000);
    const row = await tdb().selectFrom('customers').selectAll().where('id', '=', d.customer.id).executeTakeFirstOrThrow();
    expect({ name: row.name, phone: row.phone, email: row.email }).toEqual({ name: 'Anna', phone: '+32470123456', email: null });
    // The token is stored hashed only, bound to this kiosk.
    const tokens = await tdb().selectFrom('loyalty_tokens').selectAll().where('customer_id', '=', d.customer.id).execute();
    expect(tokens.map((t) => [t.token_hash, t.device_id, t.used_at])).toEqual([[hashLoyaltyToken(d.loyalty_token), m.kiosk.device_id, null]]);
    expect(JSON.stringify(tokens)).not.toContain(d.loyalty_token);
    const timeline = await tdb().selectFrom('customer_timeline').select(['kind', 'detail']).where('customer_id', '=', d.customer.id).execute();
    expect(timeline).toEqual([{ kind: 'enrolled', detail: { source: 'kiosk' } }]);
  });

  test('the same phone typed internationally is the same customer; an e-mail typed beside it is not added to that account', async () => {
    const before = await count('customers');
    const r = await post('/kiosk/customer/identify', { phone: '+32 470 12 34 56', email: 'Anna@Example.COM' });
    expect(r.status).toBe(200);
    expect(r.body.data.created).toBe(false);
    expect(r.body.data.customer).toMatchObject({ name: 'Anna', email: null, phone: '*********456' });
    expect(await count('customers')).toBe(before);
    const row = await tdb().selectFrom('customers').select('email').where('phone', '=', '+32470123456').executeTakeFirstOrThrow();
    expect(row.email).toBeNull();
  });

  test('a stranger at the kiosk cannot add their e-mail to an account found by its phone, and so cannot open it in the app', async () => {
    const phone = `+3247${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
    const victim = (await post('/kiosk/customer/identify', { phone, name: 'Vera' })).body.data.customer.id as string;
    const attacker = `mallory-${crypto.randomUUID().slice(0, 8)}@example.com`;
    expect((await post('/kiosk/customer/identify', { phone, email: attacker })).body.data.customer).toMatchObject({ id: victim, email: null });
    // Before: the e-mail was added, and proving it at /customer/login opened Vera's account (never signed in to).
    expect(await tdb().selectFrom('customers').select('id').where('email', '=', attacker).execute()).toEqual([]);
  });

  test('bad input is a 422 on its field and writes nothing', async () => {
    const before = [await count('customers'), await count('loyalty_tokens')];
    const none = await post('/kiosk/customer/identify', { name: 'Nobody' });
    expect(none.status).toBe(422);
    expect(none.body.errors).toEqual({ phone: ['A phone number or an email address is required.'] });
    const badPhone = await post('/kiosk/customer/identify', { phone: '12345' });
    expect(badPhone.status).toBe(422);
    expect(badPhone.body.errors).toEqual({ phone: ['The phone field must be a valid phone number.'] });
    const badEmail = await post('/kiosk/customer/identify', { email: 'not-an-email' });
    expect(badEmail.status).toBe(422);
    expect(badEmail.body.errors).toEqual({ email: ['The email field must be a valid email address.'] });
    const extra = await post('/kiosk/customer/identify', { phone: '0470123456', points: 1000 });
    expect(extra.status).toBe(422);
    expect([await count('customers'), await count('loyalty_tokens')]).toEqual(before);
  });

  test('two kiosks enrolling the same new phone at once make one customer', async () => {
    const rs = await Promise.all(Array.from({ length: 6 }, () => post('/kiosk/customer/identify', { phone: '+32 475 99 88 77' })));
    expect(rs.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(rs.map((r) => r.body.data.customer.id)).size).toBe(1);
    expect(rs.filter((r) => r.body.data.created).length).toBe(1);
    const rows = await tdb().selectFrom('customers').select('id').where('phone', '=', '+32475998877').execute();
    expect(rows.length).toBe(1);
  });
});

describe('POST and GET /kiosk/loyalty', () => {
  test('loyalty login of an unknown contact is a 404 and writes nothing', async () => {
    const before = await count('loyalty_tokens');
    const r = await post('/kiosk/loyalty', { email: 'nobody@example.com' });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ message: 'Unable to locate the customer you requested.' });
    expect(await count('loyalty_tokens')).toBe(before);
  });

  test('login answers a fresh token; details read the balance behind it; a wrong token is a 422', async () => {
    // Anna added her e-mail herself (the customer app; a kiosk adds no contact to an account).
    await tdb().updateTable('customers').set({ email: 'anna@example.com' }).where('phone', '=', '+32470123456').execute();
    const r = await post('/kiosk/loyalty', { email: 'ANNA@example.com' });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ created: false, customer: { name: 'Anna' }, loyalty: { points: 0 } });
    const d = await get(`/kiosk/loyalty?loyalty_token=${r.body.data.loyalty_token}`);
    expect(d.status).toBe(200);
    expect(d.body).toEqual({
      data: { customer: r.body.data.customer, loyalty: { points: 0, lifetime_points: 0, program: { active: true, points_per_euro: 1, rewards: [] } }, history: [] },
    });
    const wrong = await get('/kiosk/loyalty?loyalty_token=not-a-real-token');
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual({ loyalty_token: ['The loyalty token is invalid or has expired.'] });
    expect((await get('/kiosk/loyalty')).status).toBe(422);
  });

  test('another merchant\'s token is unknown here; an expired token is refused', async () => {
    const otherKiosk = await api.deviceToken(other, 'kiosk');
    const theirs = await post('/kiosk/customer/identify', { phone: '0470123456' }, otherKiosk);
    expect(theirs.status).toBe(200);
    expect((await get(`/kiosk/loyalty?loyalty_token=${theirs.body.data.loyalty_token}`)).status).toBe(422);
    const mine = await post('/kiosk/loyalty', { phone: '0470123456' });
    await tdb().updateTable('loyalty_tokens').set({ expires_at: new Date(Date.now() - 1000) }).where('token_hash', '=', hashLoyaltyToken(mine.body.data.loyalty_token)).execute();
    expect((await get(`/kiosk/loyalty?loyalty_token=${mine.body.data.loyalty_token}`)).status).toBe(422);
  });
});

describe('the loyalty token through a payment (issue 12 items 4 and 6)', () => {
  test('create-intent takes the customer from the token; Complete spends it; finalisation earns points, writes the timeline and the kiosk name', async () => {
    const id = await post('/kiosk/customer/identify', { phone: '0470123456' });
    const token = id.body.data.loyalty_token as string;
    const customerId = id.body.data.customer.id as string;
    const r = await post('/kiosk/payment/create-intent', { lines: [{ item_id: item('Spaghetti bolognese').id, qty: 2 }], tip_amount: 150, loyalty_token: token, dining_option: 'For Here' });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ status: 'Complete', total: 2 * 1450 + 150 });
    const t = await tdb().selectFrom('transactions').selectAll().where('id', '=', r.body.data.id).executeTakeFirstOrThrow();
    expect({ customer_id: t.customer_id, loyalty_token: t.loyalty_token, dining_option: t.dining_option }).toEqual({ customer_id: customerId, loyalty_token: null, dining_option: 'For Here' });
    const spent = await tdb().selectFrom('loyalty_tokens').select('used_at').where('token_hash', '=', hashLoyaltyToken(token)).executeTakeFirstOrThrow();
    expect(spent.used_at).toBeInstanceOf(Date);
    // A spent token identifies nothing more.
    const again = await post('/kiosk/payment/create-intent', { lines: [{ item_id: item('Espresso').id, qty: 1 }], loyalty_token: token });
    expect(again.status).toBe(422);
    expect(again.body.errors).toEqual({ loyalty_token: ['The loyalty token is invalid or has expired.'] });

    // The worker's deferred finalisation job (run here directly): 29 euros of goods (tip excluded) at 1 point per euro.
    const outcomes = await finalisePayment(tdb(), t.id);
    expect(outcomes).toEqual({
      loyalty_earn: 'earned 29 points (balance 29)',
      offer_redemption: 'skipped: no offer',
      customer_timeline: 'recorded order_paid',
      kiosk_customer_name: 'set',
      b2b_invoice: 'skipped: no B2B customer',
    });
    // A second run (a redelivered job) changes nothing.
    expect(await finalisePayment(tdb(), t.id)).toEqual({
      loyalty_earn: 'skipped: already earned',
      offer_redemption: 'skipped: no offer',
      customer_timeline: 'skipped: already recorded',
      kiosk_customer_name: 'skipped: already set',
      b2b_invoice: 'skipped: no B2B customer',
    });
    const ledger = await tdb().selectFrom('loyalty_ledger').select(['kind', 'points', 'balance_after', 'transaction_id']).where('customer_id', '=', customerId).execute();
    expect(ledger).toEqual([{ kind: 'earn', points: 29, balance_after: 29, transaction_id: t.id }]);
    const named = await tdb().selectFrom('transactions').select('customer_name').where('id', '=', t.id).executeTakeFirstOrThrow();
    expect(named.customer_name).toBe('Anna');
    const timeline = await tdb().selectFrom('customer_timeline').select(['kind', 'transaction_id', 'detail']).where('customer_id', '=', customerId).orderBy('created_at').execute();
    expect(timeline.map((e) => e.kind)).toEqual(['enrolled', 'order_paid']);
    expect(timeline[1]!.detail).toMatchObject({ order_no: t.order_no, total: 3050, channel: 'kiosk' });

    const fresh = await post('/kiosk/loyalty', { phone: '0470123456' });
    const d = await get(`/kiosk/loyalty?loyalty_token=${fresh.body.data.loyalty_token}`);
    expect(d.body.data.loyalty).toMatchObject({ points: 29, lifetime_points: 29 });
    expect(d.body.data.history).toEqual([{ kind: 'earn', points: 29, balance_after: 29, transaction_id: t.id, at: expect.any(String) }]);
  });

  test('each finalisation step is isolated: one that throws is recorded as failed and the later ones still run', async () => {
    const id = await post('/kiosk/customer/identify', { phone: '0470123456' });
    const r = await post('/kiosk/payment/create-intent', { lines: [{ item_id: item('Croissant').id, qty: 5 }], loyalty_token: id.body.data.loyalty_token });
    const steps = defaultFinaliseSteps(tdb());
    const failing = [{ name: 'offer_redemption', run: async () => Promise.reject(new Error('offers store down')) }, ...steps.filter((s) => s.name !== 'offer_redemption')];
    const outcomes = await finalisePayment(tdb(), r.body.data.id, failing);
    expect(outcomes).toEqual({
      offer_redemption: 'failed: offers store down',
      loyalty_earn: 'earned 11 points (balance 40)',
      customer_timeline: 'recorded order_paid',
      kiosk_customer_name: 'set',
      b2b_invoice: 'skipped: no B2B customer',
    });
    expect((await listSteps(tdb(), r.body.data.id)).map((s) => s.step)).toContain('finalise');
  });

  test('concurrent finalisations of different orders keep the balance equal to the ledger', async () => {
    const id = await post('/kiosk/customer/identify', { phone: '+32 470 55 44 33' });
    const customerId = id.body.data.customer.id as string;
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const tok = (await issueLoyaltyToken(tdb(), customerId, m.kiosk.device_id, new Date())).token;
      ids.push((await post('/kiosk/payment/create-intent', { lines: [{ item_id: item('Belgian beer').id, qty: 3 }], loyalty_token: tok })).body.data.id);
    }
    await Promise.all(ids.flatMap((x) => [finalisePayment(tdb(), x), finalisePayment(tdb(), x)]));
    const acct = await tdb().selectFrom('loyalty_accounts').select(['points', 'lifetime_points']).where('customer_id', '=', customerId).executeTakeFirstOrThrow();
    const ledger = await tdb().selectFrom('loyalty_ledger').select('points').where('customer_id', '=', customerId).execute();
    expect(ledger.length).toBe(8);
    expect(acct).toEqual({ points: 8 * 13, lifetime_points: 8 * 13 });
    expect(ledger.reduce((s, l) => s + l.points, 0)).toBe(acct.points);
  });
});

describe('loyalty rewards (offer and reward redemption)', () => {
  test('a reward chosen with the token is priced as an amount off; finalisation takes its points once', async () => {
    const rewardId = await createReward(tdb(), { locationId: m.locations[0]!.id, name: 'Dessert on us', points: 30, discount: 500 }, new Date());
    const id = await post('/kiosk/customer/identify', { phone: '0470123456' });
    expect(id.body.data.loyalty).toMatchObject({ points: 40, program: { rewards: [{ id: rewardId, name: 'Dessert on us', points: 30, discount: 500 }] } });
    const preview = await post('/kiosk/offers/validate', { lines: [{ item_id: item('Spaghetti bolognese').id, qty: 1 }], loyalty_token: id.body.data.loyalty_token, reward_id: rewardId });
    expect(preview.status).toBe(200);
    expect(preview.body.data.quote).toMatchObject({ subtotal: 1450, discount: 500, total: 950, offers: [{ id: rewardId, name: 'Dessert on us', discount: 500 }] });
    const r = await post('/kiosk/payment/create-intent', { lines: [{ item_id: item('Spaghetti bolognese').id, qty: 1 }], loyalty_token: id.body.data.loyalty_token, reward_id: rewardId });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ status: 'Complete', subtotal: 1450, discount: 500, total: 950 });
    const outcomes = await finalisePayment(tdb(), r.body.data.id);
    expect(outcomes).toMatchObject({ loyalty_earn: 'earned 9 points (balance 49)', offer_redemption: `reward ${rewardId}: -30 points (balance 19)` });
    expect((await finalisePayment(tdb(), r.body.data.id)).offer_redemption).toBe(`reward ${rewardId}: already redeemed`);
    const ledger = await tdb().selectFrom('loyalty_ledger').select(['kind', 'points', 'reward_id']).where('transaction_id', '=', r.body.data.id).orderBy('created_at').execute();
    expect(ledger).toEqual([
      { kind: 'earn', points: 9, reward_id: null },
      { kind: 'redeem', points: -30, reward_id: rewardId },
    ]);
    const acct = await tdb().selectFrom('loyalty_accounts').select('points').where('customer_id', '=', id.body.data.customer.id).executeTakeFirstOrThrow();
    expect(acct.points).toBe(19);
  });

  test('one set of points pays for one reward: orders sent together or one after the other before the points are taken', async () => {
    const rewardId = await createReward(tdb(), { locationId: m.locations[0]!.id, name: 'Coffee on us', points: 10, discount: 280 }, new Date());
    const customerId = (await post('/kiosk/customer/identify', { phone: '+32 470 99 88 77' })).body.data.customer.id as string;
    await movePoints(tdb(), { customerId, kind: 'adjust', points: 14, transactionId: null }, new Date());
    const order = async () => {
      const token = (await issueLoyaltyToken(tdb(), customerId, m.kiosk.device_id, new Date())).token;
      return post('/kiosk/payment/create-intent', { lines: [{ item_id: item('Espresso').id, qty: 2 }], loyalty_token: token, reward_id: rewardId });
    };
    const together = await Promise.all([order(), order(), order()]);
    expect(together.map((r) => r.status).sort()).toEqual([200, 409, 409]);
    for (const r of together.filter((x) => x.status === 409)) expect(r.body).toEqual({ message: 'Not enough loyalty points.', reason: 'insufficient_points' });
    // Paid, its points not taken yet (finalisation pending): they still count as spent.
    const paid = together.find((r) => r.status === 200)!.body.data;
    expect(paid).toMatchObject({ status: 'Complete', discount: 280 });
    expect((await order()).status).toBe(409);
    // Finalised: 14 - 10 + the points earned; still short of a second reward.
    const finalised = await finalisePayment(tdb(), paid.id);
    const earned = (await tdb().selectFrom('loyalty_ledger').select('points').where('transaction_id', '=', paid.id).where('kind', '=', 'earn').executeTakeFirstOrThrow()).points;
    expect(finalised.offer_redemption).toBe(`reward ${rewardId}: -10 points (balance ${14 + earned - 10})`);
    expect((await order()).status).toBe(409);
    const discounted = await tdb().selectFrom('transactions').select('id').where('customer_id', '=', customerId).where('discount', '>', 0).execute();
    expect(discounted).toHaveLength(1);
  });

  test('an unpaid order holds its reward\'s points for a day; an order abandoned longer ago holds none', async () => {
    const rewardId = await createReward(tdb(), { locationId: m.locations[0]!.id, name: 'Croissant on us', points: 10, discount: 220 }, new Date());
    const customerId = (await post('/kiosk/customer/identify', { phone: '+32 470 11 22 99' })).body.data.customer.id as string;
    await movePoints(tdb(), { customerId, kind: 'adjust', points: 10, transactionId: null }, new Date());
    const order = async () => {
      const token = (await issueLoyaltyToken(tdb(), customerId, m.kiosk.device_id, new Date())).token;
      return post('/kiosk/payment/create-intent', { lines: [{ item_id: item('Croissant').id, qty: 1 }, { item_id: item('Espresso').id, qty: 1 }], loyalty_token: token, reward_id: rewardId });
    };
    const first = await order();
    expect(first.status).toBe(200);
    // The order stays unpaid (the customer walked away from the terminal).
    await tdb().updateTable('transactions').set({ status: 'Unpaid', receipt_no: null, order_status: null, completed_at: null, capacity_slot_at: null }).where('id', '=', first.body.data.id).execute();
    await tdb().deleteFrom('transaction_steps').where('transaction_id', '=', first.body.data.id).execute();
    expect((await order()).status).toBe(409);
    await tdb().updateTable('transactions').set({ created_at: new Date(Date.now() - 25 * 3600_000) }).where('id', '=', first.body.data.id).execute();
    expect((await order()).status).toBe(200);
  });

  test('too few points is a 409, an unknown reward a 404, a reward without a token a 422; nothing is written', async () => {
    const rewardId = await createReward(tdb(), { locationId: m.locations[0]!.id, name: 'Dinner for two', points: 5000, discount: 4000 }, new Date());
    const count = async () => Number((await tdb().selectFrom('transactions').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    const before = await count();
    const token = (await post('/kiosk/loyalty', { phone: '0470123456' })).body.data.loyalty_token;
    const lines = [{ item_id: item('Espresso').id, qty: 1 }];
    const poor = await post('/kiosk/payment/create-intent', { lines, loyalty_token: token, reward_id: rewardId });
    expect(poor.status).toBe(409);
    expect(poor.body).toEqual({ message: 'Not enough loyalty points.', reason: 'insufficient_points' });
    const unknown = await post('/kiosk/payment/create-intent', { lines, loyalty_token: token, reward_id: crypto.randomUUID() });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: 'Unable to locate the reward you requested.' });
    const noToken = await post('/kiosk/payment/create-intent', { lines, reward_id: rewardId });
    expect(noToken.status).toBe(422);
    expect(noToken.body.errors).toEqual({ reward_id: ["A reward needs the customer's loyalty_token."] });
    expect(await count()).toBe(before);
  });

  test('a test-mode order neither earns points nor spends them on a reward', async () => {
    const rewardId = await createReward(tdb(), { locationId: m.locations[0]!.id, name: 'Test-mode treat', points: 5, discount: 100 }, new Date());
    const id = await post('/kiosk/customer/identify', { phone: '0470999888' });
    const customerId = id.body.data.customer.id as string;
    const r = await post('/kiosk/payment/create-intent', { lines: [{ item_id: item('Spaghetti bolognese').id, qty: 2 }], loyalty_token: id.body.data.loyalty_token });
    expect(r.body.data.status).toBe('Complete');
    // Taken in test mode (no money), with a reward among its offers.
    await tdb().updateTable('transactions').set({ is_test: true, offers: JSON.stringify([{ id: rewardId, name: 'Test-mode treat', discount: 100 }]) }).where('id', '=', r.body.data.id).execute();
    expect(await finalisePayment(tdb(), r.body.data.id)).toMatchObject({ loyalty_earn: 'skipped: test mode', offer_redemption: `reward ${rewardId}: skipped: test mode` });
    expect(await tdb().selectFrom('loyalty_ledger').selectAll().where('customer_id', '=', customerId).execute()).toEqual([]);
  });
});

describe('GET /kiosk/offers and POST /kiosk/offers/validate', () => {
  let offerId: string;
  let dinnerId: string;
  beforeAll(async () => {
    offerId = crypto.randomUUID();
    dinnerId = crypto.randomUUID();
    const base = { description: null, category_ids: [], location_ids: null, created_at: new Date(), updated_at: new Date() };
    await tdb()
      .insertInto('offers')
      .values([
        { ...base, id: offerId, name: 'Coffee -10%', status: 'active', rule: JSON.stringify({ kind: 'percentage', percent: 10 }), item_ids: [item('Espresso').id], min_basket: 0, channels: ['kiosk'], schedule: null },
        { ...base, id: dinnerId, name: 'Big basket -2 EUR', status: 'active', rule: JSON.stringify({ kind: 'amount', amount: 200 }), item_ids: [], min_basket: 5000, channels: [], schedule: null },
        { ...base, id: crypto.randomUUID(), name: 'Online only', status: 'active', rule: JSON.stringify({ kind: 'percentage', percent: 50 }), item_ids: [], min_basket: 0, channels: ['online_ordering'], schedule: null },
      ])
      .execute();
  });

  test('lists the active offers that run on the kiosk channel', async () => {
    const r = await get('/kiosk/offers');
    expect(r.status).toBe(200);
    expect(r.body.data.map((o: any) => [o.name, o.available_now]).sort()).toEqual([
      ['Big basket -2 EUR', true],
      ['Coffee -10%', true],
    ]);
    expect(r.body.data.find((o: any) => o.id === offerId)).toEqual({
      id: offerId,
      name: 'Coffee -10%',
      description: null,
      rule: { kind: 'percentage', percent: 10 },
      item_ids: [item('Espresso').id],
      category_ids: [],
      min_basket: 0,
      schedule: null,
      available_now: true,
    });
  });

  test('validate prices with the one pricing function and says which offers applied and why not', async () => {
    const lines = [{ item_id: item('Espresso').id, qty: 2 }];
    const r = await post('/kiosk/offers/validate', { lines });
    expect(r.status).toBe(200);
    const quote = await post('/kiosk/pricing/quote', { lines });
    expect(r.body.data.quote).toEqual(quote.body.data);
    expect(r.body.data.quote).toMatchObject({ subtotal: 560, discount: 56, total: 504 });
    const verdicts = Object.fromEntries(r.body.data.offers.map((o: any) => [o.name, [o.applied, o.discount, o.reason]]));
    expect(verdicts).toMatchObject({ 'Coffee -10%': [true, 56, null], 'Big basket -2 EUR': [false, 0, 'min_basket'], 'Online only': [false, 0, 'channel'] });

    const asked = await post('/kiosk/offers/validate', { lines, offer_ids: [dinnerId] });
    expect(asked.body.data.offers).toEqual([{ id: dinnerId, name: 'Big basket -2 EUR', applied: false, discount: 0, reason: 'min_basket' }]);
  });

  test('an unknown or another merchant\'s offer id is a 404; an item off the menu a 422 on its line', async () => {
    const lines = [{ item_id: item('Espresso').id, qty: 1 }];
    const unknown = await post('/kiosk/offers/validate', { lines, offer_ids: [crypto.randomUUID()] });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: 'Unable to locate the offer you requested.' });
    const foreign = await post('/kiosk/offers/validate', { lines: [{ item_id: other.items[0]!.id, qty: 1 }] });
    expect(foreign.status).toBe(422);
    expect(Object.keys(foreign.body.errors)).toEqual(['lines.0.item_id']);
  });
});

describe('POST /kiosk/gift-cards/validate', () => {
  test('a code answers its balance, typed in any case and spacing; unknown, disabled and expired codes are one 404', async () => {
    const card = await issueGiftCard(tdb(), { balance: 2500 }, new Date());
    expect(card.code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/);
    const stored = await tdb().selectFrom('gift_cards').selectAll().where('id', '=', card.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain(card.code.replaceAll('-', ''));
    const typed = card.code.toLowerCase().replaceAll('-', ' ');
    const r = await post('/kiosk/gift-cards/validate', { code: typed });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: { last4: card.code.slice(-4), balance: 2500, expires_at: null } });

    const unknown = await post('/kiosk/gift-cards/validate', { code: 'AAAA-BBBB-CCCC-DDDD' });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: 'Unable to locate the gift card you requested.' });
    await tdb().updateTable('gift_cards').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', card.id).execute();
    expect((await post('/kiosk/gift-cards/validate', { code: card.code })).body).toEqual(unknown.body);
    expect((await post('/kiosk/gift-cards/validate', { code: '<script>' })).status).toBe(422);
  });

  test('the throttle answers 429 after 10 attempts a minute from one kiosk', async () => {
    const throttled = await createTestApi({ env: {} });
    try {
      const mm = await throttled.seed('kgift');
      const token = await throttled.deviceToken(mm, 'kiosk');
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await throttled.call('POST', '/api/kiosk/gift-cards/validate', { token, deviceKey: true, body: { code: `ZZZZ-ZZZZ-ZZZZ-ZZ${String(i).padStart(2, '0')}` } })).status);
      expect(statuses.filter((s) => s === 404).length).toBe(10);
      expect(statuses.slice(10)).toEqual([429, 429]);
    } finally {
      await throttled.close();
    }
  });
});

describe('GET /kiosk/updates/check and POST /kiosk/updates/push/register', () => {
  test('the manifest entry of the platform: newer, mandatory below min_version, nothing for an unknown platform', async () => {
    expect((await get('/kiosk/updates/check?platform=android&version=2.3.9')).body).toEqual({
      data: { platform: 'android', current_version: '2.3.9', latest_version: '2.4.0', update_available: true, mandatory: false, url: MANIFEST.android.url, notes: 'Faster menus' },
    });
    expect((await get('/kiosk/updates/check?platform=android&version=1.9')).body.data).toMatchObject({ update_available: true, mandatory: true });
    expect((await get('/kiosk/updates/check?platform=android&version=2.10.0')).body.data).toMatchObject({ update_available: false, mandatory: false, url: null });
    expect((await get('/kiosk/updates/check?platform=ios&version=1.0.0')).body.data).toEqual({
      platform: 'ios',
      current_version: '1.0.0',
      latest_version: null,
      update_available: false,
      mandatory: false,
      url: null,
      notes: null,
    });
    const bad = await get('/kiosk/updates/check?platform=android&version=latest');
    expect(bad.status).toBe(422);
  });

  test('a platform named like a member of every object (constructor, __proto__, toString) is an unknown platform, not a 500', async () => {
    for (const platform of ['constructor', '__proto__', 'tostring', 'hasownproperty', 'valueof']) {
      const r = await get(`/kiosk/updates/check?platform=${platform}&version=1.0.0`);
      expect([r.status, r.body.data]).toEqual([200, { platform, current_version: '1.0.0', latest_version: null, update_available: false, mandatory: false, url: null, notes: null }]);
    }
  });

  test('push register stores one token per kiosk and replaces it', async () => {
    expect((await post('/kiosk/updates/push/register', { token: 'fcm-token-1', platform: 'android', app_version: '2.3.9' })).body).toEqual({ status: 'success' });
    expect((await post('/kiosk/updates/push/register', { token: 'fcm-token-2', platform: 'android' })).status).toBe(200);
    const rows = await tdb().selectFrom('kiosk_push_tokens').select(['device_id', 'platform', 'token', 'app_version']).execute();
    expect(rows).toEqual([{ device_id: m.kiosk.device_id, platform: 'android', token: 'fcm-token-2', app_version: null }]);
    const before = await count('kiosk_push_tokens');
    expect((await post('/kiosk/updates/push/register', { token: '', platform: 'android' })).status).toBe(422);
    expect((await post('/kiosk/updates/push/register', { token: 'x', platform: 'Android OS' })).status).toBe(422);
    expect(await count('kiosk_push_tokens')).toBe(before);
  });
});

describe('device auth and gating of the kiosk routes', () => {
  const routes: [string, string, unknown?][] = [
    ['POST', '/api/kiosk/customer/identify', { phone: '0470123456' }],
    ['POST', '/api/kiosk/loyalty', { phone: '0470123456' }],
    ['GET', '/api/kiosk/loyalty?loyalty_token=abc'],
    ['GET', '/api/kiosk/offers'],
    ['POST', '/api/kiosk/offers/validate', { lines: [{ item_id: crypto.randomUUID(), qty: 1 }] }],
    ['POST', '/api/kiosk/gift-cards/validate', { code: 'AAAA' }],
    ['GET', '/api/kiosk/updates/check?platform=android&version=1.0.0'],
    ['POST', '/api/kiosk/updates/push/register', { token: 't', platform: 'android' }],
  ];
  test('401 without a token, 403 for another device type, 401 without the device key, 402 without a subscription', async () => {
    const pos = await api.deviceToken(m, 'pos');
    const before = await count('customers');
    for (const [method, path, body] of routes) {
      expect([path, (await api.call(method, path, { body })).status]).toEqual([path, 401]);
      expect([path, (await api.call(method, path, { token: pos, deviceKey: true, body })).status]).toEqual([path, 403]);
      expect([path, (await api.call(method, path, { token: kiosk, body })).status]).toEqual([path, 401]);
    }
    await tdb().updateTable('devices').set({ subscription_active_until: new Date(Date.now() - 60_000) }).where('id', '=', m.kiosk.device_id).execute();
    try {
      for (const [method, path, body] of routes) expect([path, (await api.call(method, path, { token: kiosk, deviceKey: true, body })).status]).toEqual([path, 402]);
    } finally {
      await tdb().updateTable('devices').set({ subscription_active_until: new Date(Date.now() + 365 * 86_400_000) }).where('id', '=', m.kiosk.device_id).execute();
    }
    expect(await count('customers')).toBe(before);
  });
});
