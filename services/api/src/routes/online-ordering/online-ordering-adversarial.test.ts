import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeCustomer } from '../customer-account/customer-test-support.ts';

// An adversarial pass on the storefront routes: tokens that are bad or of another merchant on the
// `auth.optional` routes, offers outside their limits. Real PostgreSQL and Redis.
let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('ooadv-a');
  b = await api.seed('ooadv-b');
}, 60_000);
afterAll(() => api.close());

const loc0 = () => a.locations[0]!.id;
const espresso = () => a.items.find((i) => i.name === 'Espresso') ?? a.items[0]!;
const routes = (): [string, string, unknown][] => [
  ['POST', `/api/online-ordering/${a.merchant.slug}/${loc0()}/offers/validate`, { lines: [{ item_id: espresso().id, qty: 1 }] }],
  ['POST', `/api/online-ordering/${a.merchant.slug}/${loc0()}/available-timeslots`, {}],
];

describe('auth.optional on the storefront routes (spec 1: auth.optional, tenant:online-ordering)', () => {
  test('no token is a guest (200); a bad token is 401 Invalid token, as on the payment route', async () => {
    for (const [method, path, body] of routes()) {
      expect([path, (await api.call(method, path, { body })).status]).toEqual([path, 200]);
      const bad = await api.call(method, path, { body, token: 'not-a-token' });
      expect([path, bad.status, bad.body]).toEqual([path, 401, { message: 'Invalid token' }]);
    }
    const verify = await api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc0()}/verify-payment`, { body: { transaction_id: crypto.randomUUID() }, token: 'not-a-token' });
    expect(verify).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
    for (const path of ['/api/online-ordering/restaurant-suggestions/top', '/api/online-ordering/restaurant-suggestions/categories']) {
      expect([path, (await api.call('GET', path)).status]).toEqual([path, 200]);
      expect([path, (await api.call('GET', path, { token: 'not-a-token' })).status]).toEqual([path, 401]);
    }
  });

  test('the token is checked before the body: a bad token with a bad body is 401, another merchant\'s customer 404, never the 422 of the body', async () => {
    const theirs = await makeCustomer(api, b);
    const storefront = `/api/online-ordering/${a.merchant.slug}/${loc0()}`;
    // Before: each answered the body's 422 (its field list) to a caller its token refused.
    for (const path of [`${storefront}/offers/validate`, `${storefront}/available-timeslots`, `${storefront}/payment`, `${storefront}/verify-payment`]) {
      const bad = await api.call('POST', path, { body: { unexpected: 1, lines: 'x', date: 5 }, token: 'x.y.z' });
      expect([path, bad.status, bad.body]).toEqual([path, 401, { message: 'Invalid token' }]);
      expect([path, (await api.call('POST', path, { body: { unexpected: 1 }, token: theirs.token })).status]).toEqual([path, 404]);
    }
    // The upvote is optional auth too: a bad token is 401 before the body; no token reaches the body's 422.
    const upvote = await api.call('POST', '/api/online-ordering/restaurant-suggestions/upvote', { body: {}, token: 'x.y.z' });
    expect([upvote.status, upvote.body]).toEqual([401, { message: 'Invalid token' }]);
    const guest = await api.call('POST', '/api/online-ordering/restaurant-suggestions/upvote', { body: {} });
    expect([guest.status, Object.keys(guest.body.errors)]).toEqual([422, ['location_id']]);
  });

  test('a customer of this merchant is served; a customer of another merchant is the 404 the payment answers', async () => {
    const mine = await makeCustomer(api, a);
    const theirs = await makeCustomer(api, b);
    for (const [method, path, body] of routes()) {
      expect([path, (await api.call(method, path, { body, token: mine.token })).status]).toEqual([path, 200]);
      expect([path, (await api.call(method, path, { body, token: theirs.token })).status]).toEqual([path, 404]);
    }
  });
});

describe('offers outside their limits', () => {
  test('an offer of another location, an inactive or archived one, or one whose basket minimum is not met does not apply online', async () => {
    const tdb = bindTenant(api.deps.db, a.merchant.tenant_database);
    const base = { description: null, category_ids: [], created_at: new Date(), updated_at: new Date(), item_ids: [], schedule: null, channels: [] as string[] };
    const rule = JSON.stringify({ kind: 'percentage', percent: 50 });
    await tdb
      .insertInto('offers')
      .values([
        { ...base, id: crypto.randomUUID(), name: 'Elsewhere', rule, location_ids: [a.locations[1]!.id], min_basket: 0, status: 'active' },
        { ...base, id: crypto.randomUUID(), name: 'Off', rule, location_ids: null, min_basket: 0, status: 'inactive' },
        { ...base, id: crypto.randomUUID(), name: 'Gone', rule, location_ids: null, min_basket: 0, status: 'archived' },
        { ...base, id: crypto.randomUUID(), name: 'Big baskets', rule, location_ids: null, min_basket: 1_000_000, status: 'active' },
      ] as never)
      .execute();
    const r = await api.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc0()}/offers/validate`, { body: { lines: [{ item_id: espresso().id, qty: 3 }] } });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ discount: 0, offers: [] });
    await tdb.deleteFrom('offers').execute();
  });
});
