import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { LOCATION_IN_USE, UNKNOWN_COUNTRY, UNKNOWN_ZONE } from '@pos/core/settings/locations';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { atOnce, sortedStatuses } from '../../testing/at-once.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';

let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerB: string;
const P = '/api/back-office/settings';
const tdbOf = (m: DemoSeedResult) => bindTenant(api.deps.db, m.merchant.tenant_database);
const count = async (table: 'locations' | 'activity_logs' | 'location_receipts') =>
  Number((await tdbOf(a).selectFrom(table).select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
const create = (body: Record<string, unknown>, token = owner) => api.call('POST', `${P}/locations`, { token, body });

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('loc-a');
  b = await api.seed('loc-b');
  owner = await api.ownerToken(a);
  ownerB = await api.ownerToken(b);
}, 60_000);
afterAll(() => api.close());

describe('locations: create, show, update, status, delete', () => {
  test('a round trip with exact bodies, the zone spelled as the zone database does', async () => {
    const logs = await count('activity_logs');
    const r = await create({ name: ' Ghent ', timezone: 'europe/brussels', country: 'be', address: 'Korenmarkt 1', city: 'Ghent', postal_code: '9000', phone: '+32 9 123 45 67', email: 'ghent@example.com' });
    expect(r.status).toBe(201);
    const id = r.body.data.id;
    expect(r.body).toEqual({
      data: {
        id,
        name: 'Ghent',
        timezone: 'Europe/Brussels',
        address: 'Korenmarkt 1',
        city: 'Ghent',
        postal_code: '9000',
        country: 'BE',
        phone: '+32 9 123 45 67',
        email: 'ghent@example.com',
        vat_no: null,
        est_no: null,
        status: 'active',
        payment_profile_id: null,
        // A new location takes cash only (spec 2 `pos_tenders`, normalised).
        pos_tenders: { enabled: [], issuers: { card_debit: [], card_credit: [], meal_voucher: [], gift_voucher: [] } },
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    });
    expect(await api.call('GET', `${P}/locations/${id}`, { token: owner })).toMatchObject({ status: 200, body: { data: r.body.data } });

    const upd = await api.call('PUT', `${P}/locations/${id}`, { token: owner, body: { name: 'Gent', timezone: 'Europe/Amsterdam', phone: null } });
    expect(upd.status).toBe(200);
    expect(upd.body.data).toMatchObject({ id, name: 'Gent', timezone: 'Europe/Amsterdam', phone: null, city: 'Ghent' });

    const st = await api.call('PUT', `${P}/locations/${id}/status`, { token: owner, body: { status: 'inactive' } });
    expect(st).toMatchObject({ status: 200, body: { data: { id, status: 'inactive' } } });
    expect((await tdbOf(a).selectFrom('locations').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status).toBe('inactive');

    expect(await api.call('DELETE', `${P}/locations/${id}`, { token: owner })).toMatchObject({ status: 200, body: { status: 'success' } });
    expect(await api.call('GET', `${P}/locations/${id}`, { token: owner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
    const actions = await tdbOf(a).selectFrom('activity_logs').select(['action']).where('subject', '=', 'location').where('subject_id', '=', id).orderBy('created_at').execute();
    expect(actions.map((x) => x.action)).toEqual(['created', 'updated', 'updated', 'deleted']);
    expect(await count('activity_logs')).toBe(logs + 4);
  });

  test('an unknown zone, an offset, and bad fields are a 422 on the field; nothing is written', async () => {
    const before = await count('locations');
    for (const tz of ['Mars/Olympus', '+01:00', 'Europe/Brussels; drop']) {
      const r = await create({ name: 'X', timezone: tz, country: 'BE' });
      expect(r.status).toBe(422);
      expect(r.body.errors).toEqual({ timezone: [UNKNOWN_ZONE] });
    }
    const bad = await create({ name: '', timezone: 'UTC', country: 'Belgium', email: 'nope', extra: 1 });
    expect(bad.status).toBe(422);
    expect(await count('locations')).toBe(before);
    const loc = a.locations[0]!.id;
    const r = await api.call('PUT', `${P}/locations/${loc}`, { token: owner, body: { timezone: 'Nowhere/City' } });
    expect(r).toMatchObject({ status: 422, body: { errors: { timezone: [UNKNOWN_ZONE] } } });
    expect((await api.call('PUT', `${P}/locations/${loc}/status`, { token: owner, body: { status: 'closed' } })).status).toBe(422);
    expect((await tdbOf(a).selectFrom('locations').select(['timezone', 'status']).where('id', '=', loc).executeTakeFirstOrThrow())).toEqual({ timezone: 'Europe/Brussels', status: 'active' });
  });

  test('a location in use (devices) is a 409 and stays', async () => {
    const loc = a.locations[0]!.id;
    const r = await api.call('DELETE', `${P}/locations/${loc}`, { token: owner });
    expect(r).toMatchObject({ status: 409, body: { message: LOCATION_IN_USE } });
    expect(await tdbOf(a).selectFrom('locations').select('id').where('id', '=', loc).executeTakeFirst()).toEqual({ id: loc });
  });

  test('a country outside /country-options (ZZ) is a 422 on country, on create and update; nothing is written', async () => {
    const options = (await api.call('GET', '/api/country-options', {})).body.data.map((o: { value: string }) => o.value);
    expect(options).toContain('BE');
    expect(options).not.toContain('ZZ');
    const before = await count('locations');
    for (const country of ['ZZ', 'zz', 'XX']) {
      expect(await create({ name: 'Nowhere', timezone: 'Europe/Brussels', country })).toMatchObject({ status: 422, body: { errors: { country: [UNKNOWN_COUNTRY] } } });
    }
    expect(await count('locations')).toBe(before);
    const loc = a.locations[0]!.id;
    const country = (await tdbOf(a).selectFrom('locations').select('country').where('id', '=', loc).executeTakeFirstOrThrow()).country;
    expect(await api.call('PUT', `${P}/locations/${loc}`, { token: owner, body: { country: 'ZZ' } })).toMatchObject({ status: 422, body: { errors: { country: [UNKNOWN_COUNTRY] } } });
    expect((await tdbOf(a).selectFrom('locations').select('country').where('id', '=', loc).executeTakeFirstOrThrow()).country).toBe(country);
  });

  test('an unused location deleted three times at once: one 200, then 404 as for a later delete', async () => {
    const id = (await create({ name: `Pop-up ${crypto.randomUUID().slice(0, 6)}`, timezone: 'Europe/Brussels', country: 'BE' })).body.data.id;
    const rs = await atOnce(3, () => api.call('DELETE', `${P}/locations/${id}`, { token: owner }));
    expect(sortedStatuses(rs)).toEqual([200, 404, 404]);
    for (const r of rs.filter((x) => x.status === 404)) expect(r.body).toMatchObject({ message: 'Unable to locate the location you requested.' });
    expect(await tdbOf(a).selectFrom('activity_logs').select('id').where('subject_id', '=', id).where('action', '=', 'deleted').execute()).toHaveLength(1);
  });
});

const newLocation = async () => (await create({ name: `Spot ${crypto.randomUUID().slice(0, 6)}`, timezone: 'Europe/Brussels', country: 'BE' })).body.data.id as string;
const locationLeft = async (id: string) => (await tdbOf(a).selectFrom('locations').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;

describe('locations: zones both sides know', () => {
  test('a zone the runtime (ICU) knows but PostgreSQL does not is the 422 on timezone, on create and update; nothing is written', async () => {
    const loc = a.locations[0]!.id;
    const before = await count('locations');
    for (const tz of ['US/Pacific-New', 'Canada/East-Saskatchewan']) {
      expect(await create({ name: 'Nowhere', timezone: tz, country: 'BE' })).toMatchObject({ status: 422, body: { errors: { timezone: [UNKNOWN_ZONE] } } });
      expect(await api.call('PUT', `${P}/locations/${loc}`, { token: owner, body: { timezone: tz } })).toMatchObject({ status: 422, body: { errors: { timezone: [UNKNOWN_ZONE] } } });
    }
    expect(await count('locations')).toBe(before);
    expect((await tdbOf(a).selectFrom('locations').select('timezone').where('id', '=', loc).executeTakeFirstOrThrow()).timezone).toBe('Europe/Brussels');
    // A link both know is still taken as ICU spells it.
    const kiev = await create({ name: 'Kyiv', timezone: 'europe/kiev', country: 'UA' });
    expect(kiev).toMatchObject({ status: 201, body: { data: { timezone: 'Europe/Kiev' } } });
    expect((await api.call('DELETE', `${P}/locations/${kiev.body.data.id}`, { token: owner })).status).toBe(200);
  });
});

describe('locations: delete while billed or connected', () => {
  const subscription = (location: string, status: string) => {
    const now = new Date();
    return tdbOf(a)
      .insertInto('billing_subscriptions')
      .values({ id: Bun.randomUUIDv7(), provider_subscription_id: `sub_${crypto.randomUUID()}`, customer_id: 'cus_loc_delete', location_id: location, price_id: 'price_kiosk', device_ids: JSON.stringify([]), status, current_period_end: now, cancel_reason: null, canceled_at: null, payment_method_id: 'pm_card', mandate_id: null, recovered_by: null, event_created: 1, created_at: now, updated_at: now })
      .returning('id')
      .executeTakeFirstOrThrow();
  };
  const connection = async (location: string, provider: string, status: string) => {
    const id = Bun.randomUUIDv7();
    await api.deps.db.insertInto('integration_connections').values({ id, provider, external_ref: `ref-${id}`, merchant_id: a.merchant.id, location_id: location, status, settings: JSON.stringify({}), created_at: new Date(), updated_at: new Date() }).execute();
    return id;
  };

  test('a card-a subscription that still bills holds the location: 409 and the record stays; an ended one does not', async () => {
    for (const status of ['active', 'past_due', 'trialing', 'unpaid']) {
      const loc = await newLocation();
      const sub = await subscription(loc, status);
      expect(await api.call('DELETE', `${P}/locations/${loc}`, { token: owner })).toMatchObject({ status: 409, body: { message: LOCATION_IN_USE } });
      expect([status, await locationLeft(loc), (await tdbOf(a).selectFrom('billing_subscriptions').select('id').where('id', '=', sub.id).executeTakeFirst())?.id]).toEqual([status, true, sub.id]);
    }
    const loc = await newLocation();
    await subscription(loc, 'canceled');
    expect(await api.call('DELETE', `${P}/locations/${loc}`, { token: owner })).toMatchObject({ status: 200, body: { status: 'success' } });
    expect(await locationLeft(loc)).toBe(false);
  });

  test('a live integration connection (delivery-a) or a register-b / register-c mapping of one holds the location: 409, nothing changes', async () => {
    const direct = await newLocation();
    const conn = await connection(direct, 'delivery-a', 'active');
    expect(await api.call('DELETE', `${P}/locations/${direct}`, { token: owner })).toMatchObject({ status: 409, body: { message: LOCATION_IN_USE } });
    expect(await locationLeft(direct)).toBe(true);
    expect(await api.deps.db.selectFrom('integration_connections').select(['status', 'location_id']).where('id', '=', conn).executeTakeFirst()).toEqual({ status: 'active', location_id: direct });
    // The merchant disables it first (the provider's own route); then the location can go.
    await api.deps.db.updateTable('integration_connections').set({ status: 'disabled' }).where('id', '=', conn).execute();
    expect((await api.call('DELETE', `${P}/locations/${direct}`, { token: owner })).status).toBe(200);

    const mappedB = await newLocation();
    const hub = await connection(a.locations[0]!.id, 'register-b', 'active');
    const now = new Date();
    await api.deps.db.insertInto('register_b_mappings').values({ merchant_id: a.merchant.id, location_id: mappedB, connection_id: hub, branch_id: `br-${mappedB}`, branch_name: 'Branch', created_at: now, updated_at: now }).execute();
    const mappedC = await newLocation();
    const hubC = await connection(a.locations[0]!.id, 'register-c', 'active');
    await api.deps.db.insertInto('register_c_mappings').values({ merchant_id: a.merchant.id, location_id: mappedC, connection_id: hubC, register_c_location_id: `rc-${mappedC}`, order_settings: JSON.stringify({}), suggestion_dismissed_digest: null, last_synced_at: null, last_sync_counts: null, created_at: now, updated_at: now }).execute();
    for (const loc of [mappedB, mappedC]) {
      expect(await api.call('DELETE', `${P}/locations/${loc}`, { token: owner })).toMatchObject({ status: 409, body: { message: LOCATION_IN_USE } });
      expect(await locationLeft(loc)).toBe(true);
    }
    // A disabled connection's mappings hold nothing and go with the location.
    await api.deps.db.updateTable('integration_connections').set({ status: 'disabled' }).where('id', 'in', [hub, hubC]).execute();
    for (const loc of [mappedB, mappedC]) expect((await api.call('DELETE', `${P}/locations/${loc}`, { token: owner })).status).toBe(200);
    expect(await api.deps.db.selectFrom('register_b_mappings').select('location_id').where('location_id', '=', mappedB).execute()).toEqual([]);
    expect(await api.deps.db.selectFrom('register_c_mappings').select('location_id').where('location_id', '=', mappedC).execute()).toEqual([]);
  });

  test('updates, status changes and receipt saves racing a delete: each is a 200 or the 404 a later request gets, never a 500', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 6; i++) {
      const loc = await newLocation();
      const [del, ...writes] = await Promise.all([
        api.call('DELETE', `${P}/locations/${loc}`, { token: owner }),
        api.call('PUT', `${P}/locations/${loc}`, { token: owner, body: { name: 'Renamed' } }),
        api.call('PUT', `${P}/locations/${loc}/status`, { token: owner, body: { status: 'inactive' } }),
        api.call('PUT', `${P}/receipts/${loc}`, { token: owner, body: { header: 'Hello' } }),
      ]);
      expect(del!.status).toBe(200);
      for (const w of writes) {
        seen.add(String(w.status));
        if (w.status !== 200) expect(w).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
      }
      expect(await locationLeft(loc)).toBe(false);
      expect(await tdbOf(a).selectFrom('location_receipts').select('location_id').where('location_id', '=', loc).execute()).toEqual([]);
    }
    expect([...seen].every((s) => s === '200' || s === '404')).toBe(true);
  });

  test('the public restaurant listing follows: a rename shows the new name, a delete removes the listing, its upvotes and table-QR entries', async () => {
    const cat = `loccat${crypto.randomUUID().slice(0, 6)}`;
    const loc = await newLocation();
    expect((await api.call('PUT', `/api/back-office/online-ordering/${loc}`, { token: owner, body: { enabled: true, latitude: 50.1, longitude: 4.1, categories: [cat] } })).status).toBe(200);
    const listed = async () => (await api.call('GET', `/api/online-ordering/restaurant-suggestions/top?category=${cat}`)).body.data as { location_id: string; name: string }[];
    expect((await listed()).map((x) => x.location_id)).toEqual([loc]);
    expect((await api.call('PUT', `${P}/locations/${loc}`, { token: owner, body: { name: 'Renamed Bistro' } })).status).toBe(200);
    expect((await listed()).map((x) => [x.location_id, x.name])).toEqual([[loc, 'Renamed Bistro']]);
    await api.deps.db.insertInto('restaurant_upvotes').values({ location_id: loc, customer_id: crypto.randomUUID(), created_at: new Date() }).execute();
    await api.deps.db.insertInto('table_qr_directory').values({ table_section_id: crypto.randomUUID(), merchant_id: a.merchant.id, location_id: loc }).execute();
    expect((await api.call('DELETE', `${P}/locations/${loc}`, { token: owner })).status).toBe(200);
    expect(await listed()).toEqual([]);
    expect(await api.deps.db.selectFrom('restaurant_upvotes').select('customer_id').where('location_id', '=', loc).execute()).toEqual([]);
    expect(await api.deps.db.selectFrom('table_qr_directory').select('table_section_id').where('location_id', '=', loc).execute()).toEqual([]);
  });
});

describe('lists, export, options, terminals', () => {
  test('datatable searches, filters and pages; options list by name', async () => {
    const made = await create({ name: 'Zulu Search Spot', timezone: 'UTC', country: 'NL', city: 'Utrecht' });
    await api.call('PUT', `${P}/locations/${made.body.data.id}/status`, { token: owner, body: { status: 'inactive' } });
    const all = await api.call('GET', `${P}/locations/datatable?per_page=100`, { token: owner });
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(all.body.data.length);
    expect(all.body.data.map((l: { name: string }) => l.name)).toEqual([...all.body.data.map((l: { name: string }) => l.name)].sort((x: string, y: string) => (x < y ? -1 : 1)));
    const found = await api.call('GET', `${P}/locations/datatable?search=utrecht`, { token: owner });
    expect(found.body).toMatchObject({ total: 1, page: 1, per_page: 25, data: [{ id: made.body.data.id, status: 'inactive' }] });
    const inactive = await api.call('GET', `${P}/locations/datatable?status=inactive`, { token: owner });
    expect(inactive.body.data.map((l: { id: string }) => l.id)).toEqual([made.body.data.id]);
    const paged = await api.call('GET', `${P}/locations/datatable?per_page=1&page=2&sort=-name`, { token: owner });
    expect(paged.body).toMatchObject({ page: 2, per_page: 1, total: all.body.total });
    expect(paged.body.data).toHaveLength(1);
    const opts = await api.call('GET', `${P}/location-options`, { token: owner });
    type Opt = { value: string; label: string };
    type Loc = { id: string; name: string; timezone: string; status: string };
    // Select options like every options route: `{value: id, label: name}` plus timezone and status.
    expect([...opts.body.data].sort((x: Opt, y: Opt) => (x.value < y.value ? -1 : 1))).toEqual(
      [...all.body.data].sort((x: Loc, y: Loc) => (x.id < y.id ? -1 : 1)).map((l: Loc) => ({ value: l.id, label: l.name, timezone: l.timezone, status: l.status })),
    );
    expect(opts.body.data.map((o: Opt) => o.label)).toEqual([...opts.body.data.map((o: Opt) => o.label)].sort((x: string, y: string) => (x < y ? -1 : 1)));
    expect(opts.body.data.find((o: Opt) => o.value === made.body.data.id)).toEqual({ value: made.body.data.id, label: 'Zulu Search Spot', timezone: 'UTC', status: 'inactive' });
  });

  test('export is a CSV of the caller\'s locations (or of the ids given), formula cells defused', async () => {
    const f = await create({ name: '=HYPERLINK("x")', timezone: 'UTC', country: 'BE' });
    const foreign = await api.call('POST', `${P}/locations/export`, { token: owner, body: { ids: [f.body.data.id, b.locations[0]!.id] } });
    expect(foreign).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
    const r = await api.call('POST', `${P}/locations/export`, { token: owner, body: { ids: [f.body.data.id, a.locations[0]!.id, f.body.data.id] } });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(r.headers.get('content-disposition')).toMatch(/^attachment; filename="locations-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = r.text.replace(/^\uFEFF/, '').trim().split('\n');
    expect(lines[0]).toBe('id,name,timezone,address,city,postal_code,country,phone,email,vat_no,est_no,status,payment_profile_id,created_at,updated_at');
    expect(lines).toHaveLength(3); // header + the two asked for
    expect(r.text).toContain(`${f.body.data.id},"'=HYPERLINK(""x"")"`);
    expect(r.text).not.toContain(a.locations[1]!.id);
    const all = await api.call('POST', `${P}/locations/export`, { token: owner, body: {} });
    expect(all.text.replace(/^\uFEFF/, '').trim().split('\n').length - 1).toBe(await count('locations'));
  });

  test('terminal options list the terminals bound to the location\'s devices, and the in-person provider its payment profile reports', async () => {
    const loc = a.locations[0]!.id;
    const dev = a.devices.find((d) => d.type === 'pos')!;
    await tdbOf(a).updateTable('devices').set({ card_b_terminal_id: 'TERM-42' }).where('id', '=', dev.id).execute();
    const PP = `${P}/payment-profiles`;
    // The first profile is the default (no accounts); the location chooses a second one with a card-b account.
    await api.call('POST', PP, { token: owner, body: { name: 'Main' } });
    const terminals = (await api.call('POST', PP, { token: owner, body: { name: 'Terminals' } })).body.data.id;
    expect((await api.call('POST', `${PP}/${terminals}/card-b/account`, { token: owner, body: { account_id: 'cb-loc-a' } })).status).toBe(200);
    const put = await api.call('PUT', `${P}/locations/${loc}`, { token: owner, body: { payment_profile_id: terminals } });
    expect(put).toMatchObject({ status: 200, body: { data: { id: loc, payment_profile_id: terminals } } });
    const r = await api.call('GET', `${P}/locations/${loc}/terminal-options`, { token: owner });
    expect(r.status).toBe(200);
    expect(r.body.data.in_person_provider).toBe('card-b');
    expect(r.body.data.terminals).toContainEqual({ provider: 'card-b', terminal_id: 'TERM-42', device_id: dev.id, device_name: expect.any(String) });
    const other = await api.call('GET', `${P}/locations/${a.locations[1]!.id}/terminal-options`, { token: owner });
    expect(other.body.data.terminals.map((t: { device_id: string }) => t.device_id)).not.toContain(dev.id);
    // The other location is on the default profile, which reports no provider.
    expect(other.body.data.in_person_provider).toBeNull();
  });

  test('a location\'s payment profile: one of the merchant\'s (404 otherwise), null goes back to the default; a deleted profile leaves the default', async () => {
    const loc = a.locations[1]!.id;
    const PP = `${P}/payment-profiles`;
    const theirs = (await api.call('POST', PP, { token: ownerB, body: { name: 'Theirs' } })).body.data.id;
    for (const id of [theirs, crypto.randomUUID(), 'not-a-uuid']) {
      expect(await api.call('PUT', `${P}/locations/${loc}`, { token: owner, body: { payment_profile_id: id } })).toMatchObject({ status: 404, body: { message: 'Unable to locate the payment profile you requested.' } });
    }
    expect((await tdbOf(a).selectFrom('locations').select('payment_profile_id').where('id', '=', loc).executeTakeFirstOrThrow()).payment_profile_id).toBeNull();
    const spare = (await api.call('POST', PP, { token: owner, body: { name: 'Spare' } })).body.data.id;
    await api.call('POST', `${PP}/${spare}/card-b/account`, { token: owner, body: { account_id: 'cb-spare' } });
    expect((await api.call('PUT', `${P}/locations/${loc}`, { token: owner, body: { payment_profile_id: spare } })).body.data.payment_profile_id).toBe(spare);
    expect((await api.call('GET', `${P}/locations/${loc}/terminal-options`, { token: owner })).body.data.in_person_provider).toBe('card-b');
    expect((await api.call('PUT', `${P}/locations/${loc}`, { token: owner, body: { payment_profile_id: null } })).body.data.payment_profile_id).toBeNull();
    expect((await api.call('GET', `${P}/locations/${loc}/terminal-options`, { token: owner })).body.data.in_person_provider).toBeNull();
    expect((await api.call('PUT', `${P}/locations/${loc}`, { token: owner, body: { payment_profile_id: spare } })).status).toBe(200);
    expect((await api.call('DELETE', `${PP}/${spare}`, { token: owner })).status).toBe(200);
    expect((await api.call('GET', `${P}/locations/${loc}`, { token: owner })).body.data.payment_profile_id).toBeNull();
    expect((await api.call('GET', `${P}/locations/${loc}/terminal-options`, { token: owner })).body.data.in_person_provider).toBeNull();
  });
});

describe('grant and isolation', () => {
  test('another merchant\'s location is a 404 on every route and stays unchanged', async () => {
    const theirs = b.locations[0]!.id;
    for (const [method, path, body] of [
      ['GET', `/locations/${theirs}`, undefined],
      ['GET', `/locations/${theirs}/terminal-options`, undefined],
      ['PUT', `/locations/${theirs}`, { name: 'Hijack' }],
      ['PUT', `/locations/${theirs}/status`, { status: 'inactive' }],
      ['DELETE', `/locations/${theirs}`, undefined],
    ] as const) {
      const r = await api.call(method, `${P}${path}`, { token: owner, body });
      expect([method, path, r.status, r.body.message]).toEqual([method, path, 404, 'Unable to locate the location you requested.']);
    }
    expect(await tdbOf(b).selectFrom('locations').select(['name', 'status']).where('id', '=', theirs).executeTakeFirstOrThrow()).toMatchObject({ status: 'active' });
    const list = await api.call('GET', `${P}/locations/datatable?per_page=100`, { token: ownerB });
    expect(list.body.data.map((l: { id: string }) => l.id)).not.toContain(a.locations[0]!.id);
  });

  test('a member sees only the granted locations; outside the grant is a 403; create and delete need every location', async () => {
    const token = await limitedUserToken(api, a, [], [a.locations[0]!.id]);
    const list = await api.call('GET', `${P}/locations/datatable`, { token });
    expect(list.body.data.map((l: { id: string }) => l.id)).toEqual([a.locations[0]!.id]);
    expect((await api.call('GET', `${P}/location-options`, { token })).body.data.map((l: { value: string }) => l.value)).toEqual([a.locations[0]!.id]);
    expect(await api.call('GET', `${P}/locations/${a.locations[1]!.id}`, { token })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect((await api.call('PUT', `${P}/locations/${a.locations[1]!.id}/status`, { token, body: { status: 'inactive' } })).status).toBe(403);
    const before = await count('locations');
    expect(await create({ name: 'Mine', timezone: 'UTC', country: 'BE' }, token)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect(await count('locations')).toBe(before);
    expect((await api.call('GET', `${P}/locations/${a.locations[0]!.id}`, { token })).status).toBe(200);
    expect((await api.call('GET', `${P}/locations/datatable`)).status).toBe(401);
  });
});
