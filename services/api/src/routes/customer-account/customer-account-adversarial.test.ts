import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeCustomer, makeOrder } from './customer-test-support.ts';

// An adversarial pass on the customer app: blank address parts, another customer's records, tokens
// of another merchant. Real PostgreSQL and Redis.
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('caadv');
  other = await api.seed('caadv-b');
});
afterAll(() => api.close());

let ipSeq = Math.floor(Math.random() * 200);
const freshIp = () => `10.23.${++ipSeq % 250}.${Math.floor(Math.random() * 250) + 1}`;
const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);
const call = (method: string, path: string, token: string | undefined, body?: unknown) => api.call(method, `/api${path}`, { token, body, ip: freshIp() });
const addressCount = async (customerId: string) =>
  Number((await tdb().selectFrom('customer_addresses').select((eb) => eb.fn.countAll<string>().as('n')).where('customer_id', '=', customerId).executeTakeFirstOrThrow()).n);

describe('addresses with blank parts', () => {
  const good = { line1: 'Rue Haute 1', postal_code: '1000', city: 'Brussels', country: 'BE' };

  test('a line1, postal code or city of spaces only is a 422 on its field, and no address is stored (customer app)', async () => {
    const c = await makeCustomer(api, m);
    for (const field of ['line1', 'postal_code', 'city'] as const) {
      const r = await call('POST', '/customer/addresses', c.token, { ...good, [field]: '   ' });
      expect([field, r.status, r.body.errors]).toEqual([field, 422, { [field]: [`The ${field} field is required.`] }]);
    }
    expect(await addressCount(c.id)).toBe(0);
    const ok = await call('POST', '/customer/addresses', c.token, { ...good, line1: '  Rue Haute 1  ', label: '  Home  ', line2: '   ' });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ line1: 'Rue Haute 1', line2: null, label: 'Home', is_default: true });
  });

  test('the same in the back office', async () => {
    const c = await makeCustomer(api, m);
    const owner = await api.ownerToken(m);
    const r = await call('POST', `/back-office/customers/${c.id}/addresses`, owner, { ...good, city: '\t ' });
    expect(r).toMatchObject({ status: 422, body: { errors: { city: ['The city field is required.'] } } });
    expect(await addressCount(c.id)).toBe(0);
  });
});

describe('another customer\'s and another merchant\'s records', () => {
  test('a customer cannot delete another customer\'s address, nor read their orders; ids in any spelling are the same 404', async () => {
    const a = await makeCustomer(api, m);
    const b = await makeCustomer(api, m);
    const addr = await call('POST', '/customer/addresses', b.token, { line1: 'Rue Basse 2', postal_code: '1000', city: 'Brussels', country: 'BE' });
    for (const id of [addr.body.data.id, addr.body.data.id.toUpperCase(), 'not-a-uuid']) {
      expect((await call('DELETE', `/customer/addresses/${id}`, a.token)).status).toBe(404);
    }
    expect(await addressCount(b.id)).toBe(1);
    const order = await makeOrder(api, m, { customerId: b.id });
    expect((await call('GET', `/customer/${m.merchant.slug}/order-detail/${order.id}`, a.token)).status).toBe(404);
    expect((await call('GET', `/customer/${m.merchant.slug}/order-detail/${order.id.toUpperCase()}`, a.token)).status).toBe(404);
    const history = await call('POST', `/customer/${m.merchant.slug}/order-history`, a.token, { order_ids: [order.id] });
    expect(history).toMatchObject({ status: 200, body: { data: [], total: 0 } });
  });

  test('a customer token of another merchant is a 404 on this merchant\'s slug, and reads nothing', async () => {
    const theirs = await makeCustomer(api, other);
    expect((await call('GET', `/customer/loyalties/${m.merchant.slug}`, theirs.token)).status).toBe(404);
    expect((await call('POST', `/customer/${m.merchant.slug}/order-history`, theirs.token, {})).status).toBe(404);
    expect((await call('GET', `/customer/loyalties/${other.merchant.slug}/${m.locations[0]!.id}`, theirs.token)).status).toBe(404);
  });

  test('the order routes check the token before the body: a refused token is 401, another merchant\'s customer 404, never the body\'s 422', async () => {
    const theirs = await makeCustomer(api, other);
    const history = `/customer/${m.merchant.slug}/order-history`;
    // Before: both answered the body's 422 (its fields) to callers their tokens refused.
    const bad = await call('POST', history, 'x.y.z', { page: 'x', unexpected: 1 });
    expect([bad.status, bad.body]).toEqual([401, { message: 'Invalid token' }]);
    expect((await call('POST', history, theirs.token, { page: 'x' })).status).toBe(404);
  });
});

describe('marketing consent given or withdrawn in the app', () => {
  test('is on the timeline as the back office\'s change is (by the customer); sending the same value again adds nothing', async () => {
    const c = await makeCustomer(api, m);
    const events = async () => (await tdb().selectFrom('customer_timeline').select(['kind', 'detail']).where('customer_id', '=', c.id).where('kind', 'like', 'marketing_%').orderBy('created_at').orderBy('id').execute());
    expect((await call('POST', '/customer/personal-info', c.token, { marketing_consent: true })).status).toBe(200);
    expect((await call('POST', '/customer/personal-info', c.token, { marketing_consent: true, name: 'Cora B' })).status).toBe(200);
    expect((await call('POST', '/customer/personal-info', c.token, { marketing_consent: false })).status).toBe(200);
    expect(await events()).toEqual([
      { kind: 'marketing_opted_in', detail: { by: 'customer' } },
      { kind: 'marketing_opted_out', detail: { by: 'customer' } },
    ]);
    // A refused update (a taken e-mail) records no consent change either.
    const other = await makeCustomer(api, m, { email: `taken-${crypto.randomUUID().slice(0, 6)}@example.com` });
    const refused = await call('POST', '/customer/personal-info', c.token, { marketing_consent: true, email: (await tdb().selectFrom('customers').select('email').where('id', '=', other.id).executeTakeFirstOrThrow()).email });
    expect(refused.status).toBe(422);
    expect((await events()).length).toBe(2);
  });
});

describe('personal-info contact changes are throttled (the "taken" answer tells who is a customer)', () => {
  const email = (tag: string) => `${tag}-${crypto.randomUUID().slice(0, 8)}@example.com`;

  test('10 per hour per customer, taken or not: the 11th is 429 and writes nothing; the customer\'s own contact, a name or consent is not counted', async () => {
    const ip = freshIp();
    const taken = await makeCustomer(api, m, { email: email('taken') });
    const prober = await makeCustomer(api, m);
    const send = (body: unknown) => api.call('POST', '/api/customer/personal-info', { token: prober.token, body, ip });
    const answers = [];
    for (let i = 0; i < 10; i++) answers.push((await send({ email: i === 3 ? (await tdb().selectFrom('customers').select('email').where('id', '=', taken.id).executeTakeFirstOrThrow()).email : email(`probe${i}`) })).status);
    expect(answers).toEqual([200, 200, 200, 422, 200, 200, 200, 200, 200, 200]);
    const before = await tdb().selectFrom('customers').select(['email', 'phone', 'name']).where('id', '=', prober.id).executeTakeFirstOrThrow();
    const over = await send({ email: email('probe-over'), name: 'Changed' });
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ message: 'Too Many Attempts.', retry_after: expect.any(Number) });
    expect(await tdb().selectFrom('customers').select(['email', 'phone', 'name']).where('id', '=', prober.id).executeTakeFirstOrThrow()).toEqual(before);
    // The same phone spelled nationally, the current e-mail, a name or consent: no contact changes, not counted.
    const national = `0${prober.phone!.slice(3)}`;
    expect((await send({ email: before.email, phone: national, name: 'Still me', marketing_consent: true })).status).toBe(200);
    // Another customer from another address is not affected.
    const other = await makeCustomer(api, m);
    expect((await api.call('POST', '/api/customer/personal-info', { token: other.token, body: { email: email('other') }, ip: freshIp() })).status).toBe(200);
  });

  test('20 per hour per client address, across customers: the 21st is 429', async () => {
    const ip = freshIp();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const c = await makeCustomer(api, m);
      for (let j = 0; j < 3; j++) statuses.push((await api.call('POST', '/api/customer/personal-info', { token: c.token, body: { email: email(`addr${i}-${j}`) }, ip })).status);
    }
    expect(statuses).toEqual([...Array(20).fill(200), 429]);
  });
});
