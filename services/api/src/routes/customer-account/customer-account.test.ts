import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createReward } from '@pos/core/customers/rewards';
import { movePoints } from '@pos/core/customers/loyalty';
import { signedInCustomer, updatePersonalInfo } from '@pos/core/customers/customer-profile';
import { addAddress, deleteAddress } from '@pos/core/customers/customer-views';
import { errors } from '@pos/kernel';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeCustomer, makeOrder } from './customer-test-support.ts';

// The customer app routes (auth, type:customer) and the auth.optional order routes, on real PostgreSQL and Redis.
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let cora: Awaited<ReturnType<typeof makeCustomer>>;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('cacct');
  other = await api.seed('cacct-b');
  cora = await makeCustomer(api, m, { name: 'Cora', email: 'cora@example.com' });
});
afterAll(() => api.close());

let ipSeq = Math.floor(Math.random() * 200);
const freshIp = () => `10.19.${++ipSeq % 250}.${Math.floor(Math.random() * 250) + 1}`;
const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);
const call = (method: string, path: string, token: string | undefined, body?: unknown, ip?: string) => api.call(method, `/api${path}`, { token, body, ip: ip ?? freshIp() });

describe('auth and type', () => {
  test('401 without a token, 403 for a back-office token, 401 after logout', async () => {
    expect(await call('GET', '/customer/user', undefined)).toMatchObject({ status: 401, body: { message: 'Unauthenticated' } });
    const owner = await api.ownerToken(m);
    expect(await call('GET', '/customer/user', owner)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Invalid user type' } });
    const c = await makeCustomer(api, m);
    expect((await call('GET', '/customer/user', c.token)).status).toBe(200);
    expect(await call('POST', '/customer/logout', c.token)).toMatchObject({ status: 200, body: { status: 'success' } });
    expect(await call('GET', '/customer/user', c.token)).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
  });
});

describe('profile and personal info', () => {
  test('GET /customer/user and /customer/personal-info answer the customer', async () => {
    const want = { id: cora.id, name: 'Cora', email: 'cora@example.com', phone: cora.phone, marketing_consent: false, created_at: expect.any(String), updated_at: expect.any(String) };
    expect(await call('GET', '/customer/user', cora.token)).toMatchObject({ status: 200, body: { data: want } });
    expect((await call('GET', '/customer/personal-info', cora.token)).body).toEqual({ data: want });
  });

  test('POST /customer/personal-info updates the fields given, normalised; a taken contact is a 422', async () => {
    const c = await makeCustomer(api, m, { name: 'Dan' });
    const r = await call('POST', '/customer/personal-info', c.token, { name: '  Daniel ', email: 'Dan@Example.COM', marketing_consent: true });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ name: 'Daniel', email: 'dan@example.com', phone: c.phone, marketing_consent: true });
    const taken = await call('POST', '/customer/personal-info', c.token, { email: 'cora@example.com' });
    expect(taken).toMatchObject({ status: 422, body: { errors: { email: ['The email has already been taken.'] } } });
    const none = await call('POST', '/customer/personal-info', c.token, { email: null, phone: null });
    expect(none).toMatchObject({ status: 422, body: { errors: { phone: ['A phone number or an email address is required.'] } } });
    const row = await tdb().selectFrom('customers').select(['email', 'phone']).where('id', '=', c.id).executeTakeFirstOrThrow();
    expect(row).toEqual({ email: 'dan@example.com', phone: c.phone });
    expect((await call('POST', '/customer/personal-info', c.token, { id: cora.id })).status).toBe(422);
  });

  test('two customers taking the same e-mail at once: one 200, the other the same 422 (never a 500)', async () => {
    for (let round = 0; round < 4; round++) {
      const [a, b] = [await makeCustomer(api, m), await makeCustomer(api, m)];
      const email = `same-${round}-${crypto.randomUUID().slice(0, 8)}@example.com`;
      const answers = await Promise.all([a, b].map((c) => call('POST', '/customer/personal-info', c.token, { email })));
      expect(answers.map((r) => r.status).sort()).toEqual([200, 422]);
      expect(answers.find((r) => r.status === 422)!.body.errors).toEqual({ email: ['The email has already been taken.'] });
    }
  });
});

describe('addresses', () => {
  test('add (first is default), options, set a new default, delete (default moves), another customer\'s is 404', async () => {
    const c = await makeCustomer(api, m);
    const opts = await call('GET', '/customer/addresses/options', c.token);
    expect(opts.status).toBe(200);
    expect(opts.body.data.countries).toContainEqual({ value: 'BE', label: 'Belgium' });
    expect(opts.body.data.labels).toEqual([{ value: 'Home', label: 'Home' }, { value: 'Work', label: 'Work' }, { value: 'Other', label: 'Other' }]);
    const home = await call('POST', '/customer/addresses', c.token, { label: 'Home', line1: 'Rue Neuve 1', postal_code: '1000', city: 'Brussels', country: 'be' });
    expect(home.status).toBe(200);
    expect(home.body.data).toEqual({ id: expect.any(String), label: 'Home', line1: 'Rue Neuve 1', line2: null, postal_code: '1000', city: 'Brussels', country: 'BE', is_default: true, created_at: expect.any(String) });
    const work = await call('POST', '/customer/addresses', c.token, { label: 'Work', line1: 'Meir 2', postal_code: '2000', city: 'Antwerp', country: 'BE', is_default: true });
    expect(work.body.data.is_default).toBe(true);
    const list = await call('GET', '/customer/addresses', c.token);
    expect(list.body.data.map((a: { id: string; is_default: boolean }) => [a.id, a.is_default])).toEqual([[work.body.data.id, true], [home.body.data.id, false]]);
    expect(await call('POST', '/customer/addresses', c.token, { line1: 'x', postal_code: '1', city: 'y', country: 'ZZ' })).toMatchObject({ status: 422, body: { errors: { country: ['The selected country is invalid.'] } } });
    expect((await call('POST', '/customer/addresses', c.token, { line1: '', postal_code: '1', city: 'y', country: 'BE' })).status).toBe(422);
    // Cora cannot delete this customer's address.
    expect(await call('DELETE', `/customer/addresses/${work.body.data.id}`, cora.token)).toMatchObject({ status: 404, body: { message: 'Unable to locate the address you requested.' } });
    expect((await call('DELETE', '/customer/addresses/not-a-uuid', c.token)).status).toBe(404);
    expect(await call('DELETE', `/customer/addresses/${work.body.data.id}`, c.token)).toMatchObject({ status: 200, body: { status: 'success' } });
    const after = await call('GET', '/customer/addresses', c.token);
    expect(after.body.data.map((a: { id: string; is_default: boolean }) => [a.id, a.is_default])).toEqual([[home.body.data.id, true]]);
  });
});

describe('a customer erased while their app writes', () => {
  test('the writes racing the erasure answer 200 or 401 Invalid token, never a 500', async () => {
    const owner = await api.ownerToken(m);
    const bad: string[] = [];
    for (let round = 0; round < 6; round++) {
      const c = await makeCustomer(api, m);
      const rs = await Promise.all([
        ...Array.from({ length: 4 }, (_, i) => call('POST', '/customer/addresses', c.token, { line1: `Street ${i}`, postal_code: '1000', city: 'Brussels', country: 'BE' })),
        ...Array.from({ length: 4 }, (_, i) => call('POST', '/customer/personal-info', c.token, { name: `N${i}` })),
        call('DELETE', `/back-office/customers/${c.id}`, owner),
      ]);
      for (const r of rs.slice(0, -1)) if (r.status !== 200 && !(r.status === 401 && r.body.message === 'Invalid token')) bad.push(`${r.status} ${r.text}`);
      expect(rs.at(-1)!.status).toBe(200);
    }
    expect(bad).toEqual([]);
  });

  test('GET /validate-token answers 401 Invalid token for an erased customer\'s token, as every customer route does', async () => {
    const c = await makeCustomer(api, m);
    expect(await call('GET', '/validate-token', c.token)).toMatchObject({ status: 200, body: { status: 'success', type: 'customer' } });
    expect((await call('DELETE', `/back-office/customers/${c.id}`, await api.ownerToken(m))).status).toBe(200);
    expect(await call('GET', '/customer/user', c.token)).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
    expect(await call('GET', '/validate-token', c.token)).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
  });

  test('the write that finds the row gone (erased after the token was checked) is Invalid token', async () => {
    const c = await makeCustomer(api, m);
    const row = await signedInCustomer(tdb(), c.id);
    await tdb().deleteFrom('customers').where('id', '=', c.id).execute();
    await expect(updatePersonalInfo(tdb(), row, { name: 'Late' }, new Date())).rejects.toMatchObject({ code: 'invalid_token' });
    await expect(addAddress(tdb(), c.id, { line1: 'L', postal_code: '1000', city: 'Brussels', country: 'BE' }, new Date(), errors.invalidToken)).rejects.toMatchObject({ code: 'invalid_token' });
    await expect(deleteAddress(tdb(), c.id, Bun.randomUUIDv7(), errors.invalidToken)).rejects.toMatchObject({ code: 'invalid_token' });
  });
});

describe('loyalties and locations', () => {
  test('programs with the balance; detail with rewards and history; another merchant\'s slug is 404', async () => {
    const c = await makeCustomer(api, m);
    const loc = m.locations[0]!;
    const rewardId = await createReward(tdb(), { locationId: loc.id, name: 'Free coffee', points: 5, discount: 300 }, new Date());
    await movePoints(tdb(), { customerId: c.id, kind: 'adjust', points: 7, transactionId: null }, new Date());
    const r = await call('GET', `/customer/loyalties/${m.merchant.slug}`, c.token);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ points: 7, lifetime_points: 7, programs: [{ location: { id: loc.id, name: loc.name }, points_per_euro: 1 }] });
    const d = await call('GET', `/customer/loyalties/${m.merchant.slug}/${loc.id}`, c.token);
    expect(d.status).toBe(200);
    expect(d.body.data).toMatchObject({ location: { id: loc.id }, points: 7, points_per_euro: 1 });
    expect(d.body.data.rewards).toContainEqual({ id: rewardId, name: 'Free coffee', points: 5, discount: 300, available: true });
    expect(d.body.data.history).toEqual([{ kind: 'adjust', points: 7, balance_after: 7, transaction_id: null, created_at: expect.any(String) }]);
    expect((await call('GET', `/customer/loyalties/${m.merchant.slug}/${m.locations[1]!.id}`, c.token)).status).toBe(404);
    expect(await call('GET', `/customer/loyalties/${other.merchant.slug}`, c.token)).toMatchObject({ status: 404, body: { message: 'Unable to locate the merchant you requested.' } });
    expect((await call('GET', `/customer/loyalties/${m.merchant.slug}/${other.locations[0]!.id}`, c.token)).status).toBe(404);
  });

  test('locations: ordered-at first with counts', async () => {
    const c = await makeCustomer(api, m);
    await makeOrder(api, m, { customerId: c.id, locationIndex: 1 });
    await makeOrder(api, m, { customerId: c.id, locationIndex: 1 });
    const r = await call('GET', `/customer/${m.merchant.slug}/locations`, c.token);
    expect(r.status).toBe(200);
    expect(r.body.data[0]).toMatchObject({ id: m.locations[1]!.id, orders: 2 });
    expect(r.body.data.length).toBe(m.locations.length);
    expect((await call('GET', `/customer/${other.merchant.slug}/locations`, c.token)).status).toBe(404);
  });
});

describe('order history and detail (auth.optional)', () => {
  test('a customer sees their orders, newest first, and their detail; not another customer\'s', async () => {
    const c = await makeCustomer(api, m);
    const old = await makeOrder(api, m, { customerId: c.id, createdAt: new Date(Date.now() - 3600_000), total: 500 });
    const recent = await makeOrder(api, m, { customerId: c.id, total: 900 });
    const foreign = await makeOrder(api, m, { customerId: cora.id });
    const h = await call('POST', `/customer/${m.merchant.slug}/order-history`, c.token, {});
    expect(h.status).toBe(200);
    expect(h.body).toMatchObject({ total: 2, page: 1, per_page: 25 });
    // No body at all is the first page, as `{}` is (before: 422 "The body field is required.").
    const bare = await call('POST', `/customer/${m.merchant.slug}/order-history`, c.token);
    expect([bare.status, bare.body]).toEqual([200, h.body]);
    expect(h.body.data.map((o: { id: string }) => o.id)).toEqual([recent.id, old.id]);
    expect(h.body.data[0]).toEqual({
      id: recent.id,
      order_no: recent.orderNo,
      channel: 'online_ordering',
      status: 'Complete',
      order_status: 'Queued',
      total: 900,
      location: { id: recent.location.id, name: recent.location.name },
      dining_option: null,
      created_at: expect.any(String),
      completed_at: expect.any(String),
    });
    const d = await call('GET', `/customer/${m.merchant.slug}/order-detail/${recent.id}`, c.token);
    expect(d.status).toBe(200);
    expect(d.body.data).toMatchObject({ id: recent.id, total: 900, customer_id: c.id, lines: [{ position: 1, item_id: m.items[0]!.id, qty: 1, total: 900 }] });
    expect(await call('GET', `/customer/${m.merchant.slug}/order-detail/${foreign.id}`, c.token)).toMatchObject({ status: 404, body: { message: 'Unable to locate the order you requested.' } });
    expect((await call('POST', `/customer/${other.merchant.slug}/order-history`, c.token, {})).status).toBe(404);
  });

  test('a guest sees only the guest orders it names, never a customer\'s', async () => {
    const guest = await makeOrder(api, m, {});
    const owned = await makeOrder(api, m, { customerId: cora.id });
    const h = await call('POST', `/customer/${m.merchant.slug}/order-history`, undefined, { order_ids: [guest.id, owned.id, 'junk'] });
    expect(h.status).toBe(200);
    expect(h.body.data.map((o: { id: string }) => o.id)).toEqual([guest.id]);
    expect((await call('POST', `/customer/${m.merchant.slug}/order-history`, undefined, {})).body).toEqual({ data: [], total: 0, page: 1, per_page: 25 });
    expect((await call('GET', `/customer/${m.merchant.slug}/order-detail/${guest.id}`, undefined)).status).toBe(200);
    expect((await call('GET', `/customer/${m.merchant.slug}/order-detail/${owned.id}`, undefined)).status).toBe(404);
    expect((await call('GET', `/customer/${other.merchant.slug}/order-detail/${guest.id}`, undefined)).status).toBe(404);
    expect(await call('GET', `/customer/${m.merchant.slug}/order-detail/${guest.id}`, 'garbage')).toMatchObject({ status: 401, body: { message: 'Invalid token' } });
  });

  test('throttles: order history 5 per minute, order detail 10 per minute, per address', async () => {
    const ip = freshIp();
    const hist: number[] = [];
    for (let i = 0; i < 6; i++) hist.push((await call('POST', `/customer/${m.merchant.slug}/order-history`, cora.token, {}, ip)).status);
    expect(hist).toEqual([200, 200, 200, 200, 200, 429]);
    const det: number[] = [];
    const order = await makeOrder(api, m, { customerId: cora.id });
    for (let i = 0; i < 11; i++) det.push((await call('GET', `/customer/${m.merchant.slug}/order-detail/${order.id}`, cora.token, undefined, ip)).status);
    expect(det).toEqual([...Array(10).fill(200), 429]);
  });
});
