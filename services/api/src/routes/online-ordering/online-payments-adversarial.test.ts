import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import type { CardASimulator, CardBSimulator } from '@pos/providers/payments';
import { startGeocodingSimulator, type GeocodingSimulator } from '@pos/providers/geocoding';
import type { TestApi } from '../../testing/harness.ts';
import { someAddress, storefrontTestbed } from './online-payments.test-support.ts';

// An adversarial pass on online payments and the public storefront routes (spec 1 "Online ordering and
// table QR ordering", spec 3 "Online ordering payment creation"). Real PostgreSQL, Redis and simulators.
let geo: GeocodingSimulator;
const GEO_KEY = 'geo-oo-adversarial-key';
const STOREFRONT = 'https://order.example.com/shop';
const CARD_B_PAGE = 'https://pay.card-b.example';
beforeAll(() => {
  geo = startGeocodingSimulator({ apiKey: GEO_KEY });
});
afterAll(() => geo.stop());
let cardA: CardASimulator, cardB: CardBSimulator, apiA: TestApi, apiB: TestApi, a: DemoSeedResult, b: DemoSeedResult, A_KEY: string;
storefrontTestbed('adversarial', 'opadv', (bed) => ({ cardA, cardB, apiA, apiB, a, b, cardAKey: A_KEY } = bed), {
  envA: () => ({ ONLINE_ORDERING_PUBLIC_URL: `${STOREFRONT}/`, GEOCODING_BASE_URL: geo.url, GEOCODING_API_KEY: GEO_KEY }),
  envB: () => ({ CARD_B_CHECKOUT_URL: CARD_B_PAGE }),
});

describe('hosted checkout addresses', () => {
  test('a card-a hosted checkout sends the customer back to the configured storefront, not to localhost', async () => {
    const owner = await apiA.ownerToken(a);
    const loc = a.online_ordering.location_id;
    await apiA.call('PUT', `/api/back-office/online-ordering/${loc}`, { token: owner, body: { local_debit_intent: false } });
    const r = await apiA.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc}/payment`, { body: { lines: [{ item_id: a.items[0]!.id, qty: 1 }], payment_method: 'local_debit' } });
    expect(r.status).toBe(200);
    const id = r.body.data.transaction_id;
    const cs = (await (await fetch(`${cardA.url}/v1/checkout/sessions/${r.body.data.payment.id}`, { headers: { authorization: `Bearer ${A_KEY}` } })).json()) as Record<string, string>;
    expect([cs.success_url, cs.cancel_url]).toEqual([`${STOREFRONT}/${a.merchant.slug}/${loc}?transaction=${id}`, `${STOREFRONT}/${a.merchant.slug}/${loc}?transaction=${id}&cancelled=1`]);
  });

  test("the legacy card-b redirect is card-b's checkout page for the order code, not a storefront address with it glued on", async () => {
    const loc = b.online_ordering.location_id;
    const r = await apiB.call('POST', `/api/online-ordering/${b.merchant.slug}/${loc}/payment`, { body: { lines: [{ item_id: b.items[0]!.id, qty: 1 }] } });
    expect(r.status).toBe(200);
    const orderCode: string = r.body.data.payment.orderCode;
    expect(r.body.data.payment).toEqual({ orderCode, redirectUrl: `${CARD_B_PAGE}/web/checkout?ref=${orderCode}` });
  });
});

describe('geocoding through the public routes (a paid provider call per request)', () => {
  test('60 lookups a minute per client address, suggestions and reverse together; the 61st is 429 and never reaches the provider; another address is served', async () => {
    const ip = someAddress();
    for (let i = 0; i < 30; i++) {
      expect((await apiA.call('GET', `/api/online-ordering/address-suggestions?q=Grote%20Markt%20${i}`, { ip })).status).toBe(200);
      expect((await apiA.call('GET', '/api/online-ordering/coordinates-to-address?lat=50.8467&lng=4.3525', { ip })).status).toBe(200);
    }
    const asked = geo.requests.length;
    const over = await apiA.call('GET', '/api/online-ordering/address-suggestions?q=Grote%20Markt', { ip });
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ message: 'Too Many Attempts.', retry_after: expect.any(Number) });
    const overReverse = await apiA.call('GET', '/api/online-ordering/coordinates-to-address?lat=50.8467&lng=4.3525', { ip });
    expect(overReverse.status).toBe(429);
    expect(geo.requests.length).toBe(asked);
    expect((await apiA.call('GET', '/api/online-ordering/address-suggestions?q=Grote%20Markt', { ip: someAddress() })).status).toBe(200);
  });
});

describe('an inactive location (settings > locations status)', () => {
  test('takes no new storefront or table orders and is not suggested; an order placed before is still verified; active again, all is back', async () => {
    const owner = await apiA.ownerToken(a);
    const loc = a.online_ordering.location_id;
    const section = a.table_sections.find((s) => s.location_id === loc)!;
    const slug = a.merchant.slug;
    const tdb = bindTenant(apiA.deps.db, a.merchant.tenant_database);
    const count = async () => Number((await tdb.selectFrom('transactions').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    const listed = async () => ((await apiA.call('GET', '/api/online-ordering/restaurant-suggestions/top?limit=50')).body.data as { location_id: string }[]).some((r) => r.location_id === loc);
    const line = { item_id: a.items[0]!.id, qty: 1 };
    // Placed while active, paid at card-a after the location was deactivated.
    const before = await apiA.call('POST', `/api/online-ordering/${slug}/${loc}/payment`, { body: { lines: [line] } });
    expect(before.status).toBe(200);
    expect(await listed()).toBe(true);

    expect((await apiA.call('PUT', `/api/back-office/settings/locations/${loc}/status`, { token: owner, body: { status: 'inactive' } })).status).toBe(200);
    const gone = { status: 404, body: { message: 'Unable to locate the location you requested.' } };
    const n = await count();
    const storefront = await apiA.call('GET', `/api/online-ordering/${slug}`);
    expect(storefront.status).toBe(200);
    expect((storefront.body.data.locations as { id: string }[]).map((l) => l.id)).not.toContain(loc);
    expect(await apiA.call('POST', `/api/online-ordering/${slug}/${loc}/available-timeslots`, { body: {} })).toMatchObject(gone);
    expect(await apiA.call('POST', `/api/online-ordering/${slug}/${loc}/offers/validate`, { body: { lines: [line] } })).toMatchObject(gone);
    expect(await apiA.call('POST', `/api/online-ordering/${slug}/${loc}/payment`, { body: { lines: [line] } })).toMatchObject(gone);
    expect(await apiA.call('GET', `/api/table-qr-ordering/${loc}/${section.id}/1`)).toMatchObject(gone);
    expect(await count()).toBe(n);
    expect(await listed()).toBe(false);
    // Saving the online settings of the inactive location does not list it again.
    expect((await apiA.call('PUT', `/api/back-office/online-ordering/${loc}`, { token: owner, body: { enabled: true } })).status).toBe(200);
    expect(await listed()).toBe(false);

    await cardA.confirmIntent(before.body.data.payment.id, before.body.data.payment.client_secret);
    await cardA.idle();
    const verified = await apiA.call('POST', `/api/online-ordering/${slug}/${loc}/verify-payment`, { body: { transaction_id: before.body.data.transaction_id } });
    expect(verified.status).toBe(200);
    expect(verified.body.data.status).toBe('Complete');

    expect((await apiA.call('PUT', `/api/back-office/settings/locations/${loc}/status`, { token: owner, body: { status: 'active' } })).status).toBe(200);
    expect(await listed()).toBe(true);
    expect((await apiA.call('POST', `/api/online-ordering/${slug}/${loc}/available-timeslots`, { body: {} })).status).toBe(200);
    expect((await apiA.call('GET', `/api/table-qr-ordering/${loc}/${section.id}/1`)).status).toBe(200);
  });
});

describe('storefront payment starts from one client address (throttle, spec silent)', () => {
  test('30 a minute a location (a 404 does not count); the 31st is 429 before anything is stored; another address still orders', async () => {
    const loc = a.online_ordering.location_id;
    const ip = someAddress();
    const tdb = bindTenant(apiA.deps.db, a.merchant.tenant_database);
    const count = async () => Number((await tdb.selectFrom('transactions').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    const pay = (from: string) => apiA.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc}/payment`, { body: { lines: [{ item_id: a.items[0]!.id, qty: 1 }] }, ip: from });
    // Requests for no restaurant answer 404 and do not count.
    for (let i = 0; i < 35; i++) expect((await apiA.call('POST', `/api/online-ordering/${a.merchant.slug}/${crypto.randomUUID()}/payment`, { body: { lines: [{ item_id: a.items[0]!.id, qty: 1 }] }, ip })).status).toBe(404);
    for (let i = 0; i < 30; i++) expect((await pay(ip)).status).toBe(200);
    const n = await count();
    const over = await pay(ip);
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ message: 'Too Many Attempts.', retry_after: expect.any(Number) });
    expect(await count()).toBe(n);
    expect((await pay(someAddress())).status).toBe(200);
  });
});

describe('restaurant suggestions: the limit', () => {
  test('a fraction, 0 or 51 is a 422 naming limit (a fraction was a 500 from SQL); 1 and 50 are served', async () => {
    const refused = { status: 422, body: { message: 'The limit field must be a whole number between 1 and 50.', errors: { limit: ['The limit field must be a whole number between 1 and 50.'] } } };
    for (const path of ['/api/online-ordering/restaurant-suggestions/top', '/api/online-ordering/restaurant-suggestions/nearby?lat=50.85&lng=4.35&']) {
      const sep = path.includes('?') ? '' : '?';
      for (const limit of ['1.5', '2.5', '0', '51', '1e1', 'ten']) expect([path, limit, await apiA.call('GET', `${path}${sep}limit=${limit}`)]).toMatchObject([path, limit, refused]);
      for (const limit of ['1', '50']) expect([path, limit, (await apiA.call('GET', `${path}${sep}limit=${limit}`)).status]).toEqual([path, limit, 200]);
    }
  });
});

describe('the customer contact of a storefront order', () => {
  test('customer.email and customer.phone are kept on the order (normalised) and shown to the register with it; they were accepted and dropped', async () => {
    const loc = a.online_ordering.location_id;
    const tdb = bindTenant(apiA.deps.db, a.merchant.tenant_database);
    const email = `ann.${Date.now()}@example.com`;
    const r = await apiA.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc}/payment`, {
      body: { lines: [{ item_id: a.items[0]!.id, qty: 1 }], customer: { name: 'Ann Peeters', email: email.toUpperCase(), phone: '0470 12 34 56' } },
    });
    expect(r.status).toBe(200);
    const id: string = r.body.data.transaction_id;
    const contact = () => tdb.selectFrom('transactions').select(['customer_name', 'customer_email', 'customer_phone']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(await contact()).toEqual({ customer_name: 'Ann Peeters', customer_email: email, customer_phone: '+32470123456' });
    await cardA.confirmIntent(r.body.data.payment.id, r.body.data.payment.client_secret);
    expect((await apiA.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc}/verify-payment`, { body: { transaction_id: id } })).body.data.status).toBe('Complete');
    const pos = await apiA.deviceToken(a, 'pos');
    const staff = await apiA.staffLogin(a, 'cashier', pos);
    const list = await apiA.call('GET', '/api/pos/channel-orders?view=active&per_page=100', { token: pos, deviceKey: true, staffToken: staff });
    expect(list.status).toBe(200);
    expect((list.body.data as { id: string }[]).find((o) => o.id === id)).toMatchObject({ customer_name: 'Ann Peeters', customer_email: email, customer_phone: '+32470123456' });

    // Erasing the customer with that contact clears the guest order's personal data too (it is theirs).
    const owner = await apiA.ownerToken(a);
    const c = await apiA.call('POST', '/api/back-office/customers', { token: owner, body: { name: 'Ann Peeters', email } });
    expect(c.status).toBe(200);
    expect((await apiA.call('DELETE', `/api/back-office/customers/${c.body.data.id}`, { token: owner })).status).toBe(200);
    expect(await contact()).toEqual({ customer_name: null, customer_email: null, customer_phone: null });
  });

  test('a phone number nobody can call is a 422 on customer.phone and nothing is stored', async () => {
    const loc = a.online_ordering.location_id;
    const tdb = bindTenant(apiA.deps.db, a.merchant.tenant_database);
    const count = async () => Number((await tdb.selectFrom('transactions').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
    const n = await count();
    const r = await apiA.call('POST', `/api/online-ordering/${a.merchant.slug}/${loc}/payment`, { body: { lines: [{ item_id: a.items[0]!.id, qty: 1 }], customer: { phone: '1234' } } });
    expect(r).toMatchObject({ status: 422, body: { message: 'The customer phone must be a phone number.', errors: { 'customer.phone': ['The customer phone must be a phone number.'] } } });
    expect(await count()).toBe(n);
  });
});
