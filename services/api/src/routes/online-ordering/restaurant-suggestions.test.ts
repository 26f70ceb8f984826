import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { anonymousUpvoter, upvoteRestaurant } from '@pos/core/online-ordering/restaurant-suggestions';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeCustomer } from '../customer-account/customer-test-support.ts';

// Restaurant suggestions across merchants: the central listing follows each location's online ordering settings.
let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
const cat = `cuisine-${crypto.randomUUID().slice(0, 8)}`;
const other = `${cat}-x`;
/** A real customer of `m` (a customer's upvote authenticates as every customer route: the customer must exist). */
const customerToken = async (m: DemoSeedResult) => (await makeCustomer(api, m)).token;
const upvote = (location_id: string, token?: string) => api.call('POST', '/api/online-ordering/restaurant-suggestions/upvote', { body: { location_id }, ...(token ? { token } : {}) });
// Somewhere in the sea (no other test lists a restaurant there): distances are exact and only ours are near.
const BASE = { lat: 10, lng: -30 };

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('rs-a');
  b = await api.seed('rs-b');
  const put = async (m: DemoSeedResult, loc: string, body: Record<string, unknown>) =>
    expect((await api.call('PUT', `/api/back-office/online-ordering/${loc}`, { token: await api.ownerToken(m), body })).status).toBe(200);
  await put(a, a.locations[0]!.id, { enabled: true, latitude: BASE.lat, longitude: BASE.lng + 0.01, categories: [cat, other] });
  await put(a, a.locations[1]!.id, { enabled: true, latitude: BASE.lat, longitude: BASE.lng + 0.1, categories: [cat] });
  await put(b, b.locations[0]!.id, { enabled: true, latitude: BASE.lat + 1, longitude: BASE.lng, categories: [cat] });
  // Listed while enabled only.
  await put(b, b.locations[1]!.id, { enabled: false, latitude: BASE.lat, longitude: BASE.lng, categories: [cat] });
}, 60_000);
afterAll(() => api.close());

describe('suggestions', () => {
  test('nearby: within the radius, nearest first, across merchants, with the distance', async () => {
    const r = await api.call('GET', `/api/online-ordering/restaurant-suggestions/nearby?lat=${BASE.lat}&lng=${BASE.lng}&radius_km=20`);
    expect(r.status).toBe(200);
    expect(r.body.data.map((x: { location_id: string; distance_km: number }) => [x.location_id, x.distance_km])).toEqual([
      [a.locations[0]!.id, 1.1],
      [a.locations[1]!.id, 10.95],
    ]);
    expect(r.body.data[0]).toEqual({ location_id: a.locations[0]!.id, slug: a.merchant.slug, name: a.locations[0]!.name, categories: [cat, other], upvotes: 0, latitude: BASE.lat, longitude: BASE.lng + 0.01, distance_km: 1.1 });
    const wide = await api.call('GET', `/api/online-ordering/restaurant-suggestions/nearby?lat=${BASE.lat}&lng=${BASE.lng}&radius_km=200&category=${cat}`);
    expect(wide.body.data.map((x: { location_id: string }) => x.location_id)).toEqual([a.locations[0]!.id, a.locations[1]!.id, b.locations[0]!.id]);
    expect((await api.call('GET', `/api/online-ordering/restaurant-suggestions/nearby?lat=100&lng=0`)).status).toBe(422);
    expect((await api.call('GET', `/api/online-ordering/restaurant-suggestions/nearby?lat=1&lng=1&radius_km=1000`)).status).toBe(422);
  });

  test('nearby across the 180° meridian: a restaurant at -179.8 is 32 km from 179.9 (before: never found)', async () => {
    const m = await api.seed('rs-dateline');
    const tag = `dateline-${crypto.randomUUID().slice(0, 8)}`;
    expect((await api.call('PUT', `/api/back-office/online-ordering/${m.locations[0]!.id}`, { token: await api.ownerToken(m), body: { enabled: true, latitude: -17, longitude: -179.8, categories: [tag] } })).status).toBe(200);
    for (const lng of [179.9, -179.9]) {
      const r = await api.call('GET', `/api/online-ordering/restaurant-suggestions/nearby?lat=-17&lng=${lng}&radius_km=50&category=${tag}`);
      expect([lng, r.body.data.map((x: { location_id: string }) => x.location_id)]).toEqual([lng, [m.locations[0]!.id]]);
    }
  });

  test('upvote once per customer; top orders by upvotes; categories count listed restaurants', async () => {
    const c1 = await customerToken(a);
    const c2 = await customerToken(a);
    expect((await upvote(b.locations[0]!.id, c1)).body).toEqual({ data: { location_id: b.locations[0]!.id, upvotes: 1, counted: true } });
    expect((await upvote(b.locations[0]!.id, c1)).body).toEqual({ data: { location_id: b.locations[0]!.id, upvotes: 1, counted: false } });
    expect((await upvote(b.locations[0]!.id, c2)).body.data).toEqual({ location_id: b.locations[0]!.id, upvotes: 2, counted: true });
    expect((await upvote(a.locations[1]!.id, c2)).body.data.upvotes).toBe(1);
    const top = await api.call('GET', `/api/online-ordering/restaurant-suggestions/top?category=${cat}`);
    expect(top.body.data.map((x: { location_id: string; upvotes: number }) => [x.location_id, x.upvotes])).toEqual([
      [b.locations[0]!.id, 2],
      [a.locations[1]!.id, 1],
      [a.locations[0]!.id, 0],
    ]);
    const cats = (await api.call('GET', '/api/online-ordering/restaurant-suggestions/categories')).body.data;
    expect(cats.filter((c: { category: string }) => c.category === cat || c.category === other)).toEqual([
      { category: cat, restaurants: 3 },
      { category: other, restaurants: 1 },
    ]);
  });

  test('upvote: a token that is sent must be valid; an unlisted or unknown restaurant is a 404 and counts nothing', async () => {
    const before = (await api.call('GET', `/api/online-ordering/restaurant-suggestions/top?category=${other}`)).body.data;
    expect(await upvote(a.locations[0]!.id, 'nope')).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
    expect(await upvote(a.locations[0]!.id, `${await customerToken(a)}x`)).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
    expect((await api.call('GET', `/api/online-ordering/restaurant-suggestions/top?category=${other}`)).body.data).toEqual(before);
    expect(await upvote(b.locations[1]!.id)).toMatchObject({ status: 404, body: { message: 'Unable to locate the restaurant you requested.' } });
    const c3 = await customerToken(b);
    expect(await upvote(b.locations[1]!.id, c3)).toMatchObject({ status: 404, body: { message: 'Unable to locate the restaurant you requested.' } });
    expect(await upvote(crypto.randomUUID(), c3)).toMatchObject({ status: 404 });
    const n = await api.deps.db.selectFrom('restaurant_upvotes').selectAll().where('customer_id', 'like', `${b.merchant.id}:%`).execute();
    expect(n).toEqual([]);
  });

  test('core: the same customer id of two merchants is two customers; concurrent upvotes count once', async () => {
    const loc = a.locations[0]!.id;
    const now = new Date();
    const results = await Promise.all([1, 2, 3].map(() => upvoteRestaurant(api.deps.db, loc, `${a.merchant.id}:same`, now)));
    expect(results.filter((r) => r.counted)).toHaveLength(1);
    const other = await upvoteRestaurant(api.deps.db, loc, `${b.merchant.id}:same`, now);
    expect(other).toEqual({ location_id: loc, upvotes: 2, counted: true });
  });

  test('optional auth: without a customer token the upvote counts once per client address, hashed; customers still once each', async () => {
    const m = await api.seed('rs-anon');
    const tag = `anon-${crypto.randomUUID().slice(0, 8)}`;
    for (const [i, lng] of [[0, 50], [1, 50.1]] as const) {
      expect((await api.call('PUT', `/api/back-office/online-ordering/${m.locations[i]!.id}`, { token: await api.ownerToken(m), body: { enabled: true, latitude: -40, longitude: lng, categories: [tag] } })).status).toBe(200);
    }
    const [l0, l1] = [m.locations[0]!.id, m.locations[1]!.id];
    const anon = (location_id: string, ip: string, token?: string) => api.call('POST', '/api/online-ordering/restaurant-suggestions/upvote', { body: { location_id }, ip, ...(token ? { token } : {}) });
    // Before: 401 Unauthenticated without a token.
    expect(await anon(l0, '203.0.113.7')).toEqual({ status: 200, body: { data: { location_id: l0, upvotes: 1, counted: true } }, text: expect.any(String), headers: expect.anything() });
    expect((await anon(l0, '203.0.113.7')).body).toEqual({ data: { location_id: l0, upvotes: 1, counted: false } });
    expect((await anon(l0, '203.0.113.8')).body).toEqual({ data: { location_id: l0, upvotes: 2, counted: true } });
    // The same address upvotes another restaurant once too.
    expect((await anon(l1, '203.0.113.7')).body).toEqual({ data: { location_id: l1, upvotes: 1, counted: true } });
    // A valid token of another type is a guest, as on the storefront: counted per address (before: 403).
    expect((await anon(l0, '203.0.113.7', await api.ownerToken(a))).body).toEqual({ data: { location_id: l0, upvotes: 2, counted: false } });
    expect((await anon(l0, '203.0.113.9', await api.ownerToken(a))).body).toEqual({ data: { location_id: l0, upvotes: 3, counted: true } });
    // A customer counts once per customer, from an address that already upvoted too.
    const c = await customerToken(a);
    expect((await anon(l0, '203.0.113.7', c)).body).toEqual({ data: { location_id: l0, upvotes: 4, counted: true } });
    expect((await anon(l0, '203.0.113.50', c)).body).toEqual({ data: { location_id: l0, upvotes: 4, counted: false } });
    // An invalid token is 401 and counts nothing, from a new address too.
    expect(await anon(l0, '203.0.113.60', 'nope')).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
    const top = await api.call('GET', `/api/online-ordering/restaurant-suggestions/top?category=${tag}`);
    expect(top.body.data.map((x: { location_id: string; upvotes: number }) => [x.location_id, x.upvotes])).toEqual([
      [l0, 4],
      [l1, 1],
    ]);
    // Stored as a hash of the address, never the address.
    const keys = (await api.deps.db.selectFrom('restaurant_upvotes').select('customer_id').where('location_id', '=', l0).orderBy('customer_id').execute()).map((r) => r.customer_id);
    expect(keys.filter((k) => k.startsWith('anon:'))).toEqual([anonymousUpvoter('203.0.113.7'), anonymousUpvoter('203.0.113.8'), anonymousUpvoter('203.0.113.9')].sort());
    expect(keys.filter((k) => k.startsWith('anon:')).every((k) => /^anon:[0-9a-f]{64}$/.test(k))).toBe(true);
    expect(keys.some((k) => k.includes('203.0.113'))).toBe(false);
    expect(keys.filter((k) => !k.startsWith('anon:'))).toHaveLength(1);
  });

  test('turning online ordering off unlists the restaurant', async () => {
    await api.call('PUT', `/api/back-office/online-ordering/${a.locations[1]!.id}`, { token: await api.ownerToken(a), body: { enabled: false } });
    const top = await api.call('GET', `/api/online-ordering/restaurant-suggestions/top?category=${cat}`);
    expect(top.body.data.map((x: { location_id: string }) => x.location_id)).not.toContain(a.locations[1]!.id);
  });
});
