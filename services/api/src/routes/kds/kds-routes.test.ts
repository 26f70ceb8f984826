import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createKitchenTickets } from '@pos/core/kitchen/tickets';
import { FIRST_PARTY_POS_REQUIRED } from '@pos/core/pos/first-party';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';

/** The KDS routes besides the list and the order actions (issue 14 item 1), and the kitchen report. */
let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let kds: string;
let kdsB: string;
let tdb: TenantDb;
const call = (method: string, path: string, body?: unknown, token = kds) => api.call(method, path, { token, deviceKey: true, body });

async function ticket(opts: { m?: DemoSeedResult; at?: Date; orderNo?: string; modifiers?: unknown[] } = {}): Promise<string> {
  const m = opts.m ?? a;
  const db = bindTenant(api.deps.db, m.merchant.tenant_database);
  const cat = await db.selectFrom('categories').select('id').orderBy('id').executeTakeFirstOrThrow();
  const [t] = await createKitchenTickets(db, {
    source: 'transaction',
    sourceId: crypto.randomUUID(),
    locationId: m.locations[0]!.id,
    orderNo: opts.orderNo ?? '7',
    at: opts.at ?? new Date(),
    lines: [
      { position: 0, item_id: m.items[0]!.id, category_id: cat.id, name: 'Burger', qty: 2, modifiers: opts.modifiers ?? [{ name: 'No onion' }, { name: 'Extra cheese' }] },
      { position: 1, item_id: m.items[1]!.id, category_id: cat.id, name: 'Fries', qty: 1, modifiers: [] },
    ],
  });
  return t!.id;
}

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('kdr-a');
  b = await api.seed('kdr-b');
  kds = await api.deviceToken(a, 'kds');
  kdsB = await api.deviceToken(b, 'kds');
  tdb = bindTenant(api.deps.db, a.merchant.tenant_database);
});
afterAll(() => api.close());

describe('PUT /kds/mark-item and /kds/mark-modifier', () => {
  test('marks a line and a modifier; the first mark starts the order; exact bodies', async () => {
    const id = await ticket();
    const r = await call('PUT', '/api/kds/mark-item', { order_id: id, position: 1, status: 'Ready' });
    expect(r.status).toBe(200);
    expect(r.body.data.status).toBe('In Progress');
    expect(r.body.data.started_at).not.toBeNull();
    expect(r.body.data.items.map((i: { status: string }) => i.status)).toEqual(['Queued', 'Ready']);
    const m = await call('PUT', '/api/kds/mark-modifier', { order_id: id, position: 0, modifier_index: 1, status: 'In Progress' });
    expect(m.status).toBe(200);
    expect(m.body.data.items[0]).toEqual({ position: 0, name: 'Burger', qty: 2, status: 'Queued', modifiers: [{ name: 'No onion' }, { name: 'Extra cheese' }], modifier_statuses: ['Queued', 'In Progress'] });
    const lines = await tdb.selectFrom('kitchen_ticket_lines').select(['position', 'status', 'modifier_statuses']).where('ticket_id', '=', id).orderBy('position').execute();
    expect(lines).toEqual([
      { position: 0, status: 'Queued', modifier_statuses: ['Queued', 'In Progress'] },
      { position: 1, status: 'Ready', modifier_statuses: [] },
    ]);
    // The same mark again changes nothing (no new kitchen event).
    const before = await tdb.selectFrom('kitchen_events').select((eb) => eb.fn.countAll<string>().as('n')).where('ticket_id', '=', id).executeTakeFirstOrThrow();
    expect((await call('PUT', '/api/kds/mark-item', { order_id: id, position: 1, status: 'Ready' })).status).toBe(200);
    const after = await tdb.selectFrom('kitchen_events').select((eb) => eb.fn.countAll<string>().as('n')).where('ticket_id', '=', id).executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
    expect((await tdb.selectFrom('kitchen_events').select('action').where('ticket_id', '=', id).orderBy('seq').execute()).map((e) => e.action)).toEqual(['created', 'mark-item', 'mark-modifier']);
  });

  test('a position or modifier the order lacks is a 422 on the field; held and complete orders are 409; nothing written', async () => {
    const id = await ticket();
    expect(await call('PUT', '/api/kds/mark-item', { order_id: id, position: 9, status: 'Ready' })).toMatchObject({
      status: 422,
      body: { errors: { position: ['The position does not name a line of this order.'] } },
    });
    expect(await call('PUT', '/api/kds/mark-modifier', { order_id: id, position: 1, modifier_index: 0, status: 'Ready' })).toMatchObject({
      status: 422,
      body: { errors: { modifier_index: ['The modifier index does not name a modifier of this line.'] } },
    });
    expect((await call('PUT', '/api/kds/mark-item', { order_id: id, position: 0, status: 'Done' })).status).toBe(422);
    expect((await call('PUT', '/api/kds/mark-item', { order_id: id, position: 0, status: 'Ready', extra: 1 })).status).toBe(422);
    await call('PUT', `/api/kds/${id}/hold`);
    expect(await call('PUT', '/api/kds/mark-item', { order_id: id, position: 0, status: 'Ready' })).toMatchObject({
      status: 409,
      body: { reason: 'order_held', message: 'This order is on hold. Release it first.' },
    });
    await call('PUT', `/api/kds/${id}/release`);
    await call('PUT', `/api/kds/${id}/complete`);
    expect(await call('PUT', '/api/kds/mark-modifier', { order_id: id, position: 0, modifier_index: 0, status: 'Ready' })).toMatchObject({ status: 409, body: { reason: 'order_complete' } });
    const lines = await tdb.selectFrom('kitchen_ticket_lines').select(['status', 'modifier_statuses']).where('ticket_id', '=', id).orderBy('position').execute();
    expect(lines).toEqual([
      { status: 'Queued', modifier_statuses: [] },
      { status: 'Queued', modifier_statuses: [] },
    ]);
  });

  test('another merchant\'s or an unknown order is a 404', async () => {
    const theirs = await ticket({ m: b });
    const nf = { status: 404, body: { message: 'Unable to locate the order you requested.' } };
    expect(await call('PUT', '/api/kds/mark-item', { order_id: theirs, position: 0, status: 'Ready' })).toMatchObject(nf);
    expect(await call('PUT', '/api/kds/mark-modifier', { order_id: crypto.randomUUID(), position: 0, modifier_index: 0, status: 'Ready' })).toMatchObject(nf);
    const db = bindTenant(api.deps.db, b.merchant.tenant_database);
    expect((await db.selectFrom('kitchen_tickets').select('status').where('id', '=', theirs).executeTakeFirstOrThrow()).status).toBe('Queued');
  });
});

describe('POST /kds/customer-arrived and /kds/estimated-arrival', () => {
  test('record the signal once; a completed order is 409; another merchant\'s a 404', async () => {
    const id = await ticket();
    const r = await call('POST', '/api/kds/customer-arrived', { order_id: id });
    expect(r.status).toBe(200);
    const arrived = r.body.data.customer_arrived_at;
    expect(typeof arrived).toBe('string');
    expect((await call('POST', '/api/kds/customer-arrived', { order_id: id })).body.data.customer_arrived_at).toBe(arrived);
    const e = await call('POST', '/api/kds/estimated-arrival', { order_id: id, estimated_arrival_at: '2030-01-02T12:15:00Z' });
    expect(e.status).toBe(200);
    expect(e.body.data.estimated_arrival_at).toBe('2030-01-02T12:15:00.000Z');
    expect((await call('POST', '/api/kds/estimated-arrival', { order_id: id, estimated_arrival_at: 'soon' })).status).toBe(422);
    expect((await call('POST', '/api/kds/customer-arrived', {})).status).toBe(422);
    const row = await tdb.selectFrom('kitchen_tickets').select(['customer_arrived_at', 'estimated_arrival_at']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.estimated_arrival_at?.toISOString()).toBe('2030-01-02T12:15:00.000Z');
    await call('PUT', `/api/kds/${id}/complete`);
    expect(await call('POST', '/api/kds/customer-arrived', { order_id: await ticketDone() })).toMatchObject({ status: 409, body: { reason: 'order_complete' } });
    const theirs = await ticket({ m: b });
    expect(await call('POST', '/api/kds/customer-arrived', { order_id: theirs })).toMatchObject({ status: 404, body: { message: 'Unable to locate the order you requested.' } });
  });

  test('an estimated arrival that is no real date and time is 422 on estimated_arrival_at, nothing stored', async () => {
    const id = await ticket();
    // '-005000-…' (a year before PostgreSQL's range): before, a 500 from the insert.
    for (const value of ['2030-02-31T12:00:00Z', '2030-01-01T24:00:00Z', '2030-02-29T12:00:00Z', '2030-13-01T12:00:00Z', '2030-01-01T12:60:00Z', '2030-01-01T12:00:00', '2030/01/01', '-005000-01-01T00:00:00Z']) {
      expect(await call('POST', '/api/kds/estimated-arrival', { order_id: id, estimated_arrival_at: value })).toMatchObject({
        status: 422,
        body: { errors: { estimated_arrival_at: ['The estimated arrival at field must be a date and time (ISO 8601).'] } },
      });
    }
    const row = await tdb.selectFrom('kitchen_tickets').select('estimated_arrival_at').where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.estimated_arrival_at).toBeNull();
    // A leap day and an offset are real.
    expect((await call('POST', '/api/kds/estimated-arrival', { order_id: id, estimated_arrival_at: '2028-02-29T23:30:00+01:00' })).body.data.estimated_arrival_at).toBe('2028-02-29T22:30:00.000Z');
  });
});

async function ticketDone(): Promise<string> {
  const id = await ticket();
  await call('PUT', `/api/kds/${id}/complete`);
  return id;
}

describe('POST /kds/push-token', () => {
  test('stores, replaces and clears the device\'s token', async () => {
    expect(await call('POST', '/api/kds/push-token', { push_token: 'tok-1', platform: 'android' })).toMatchObject({ status: 200, body: { status: 'success' } });
    const row = () => tdb.selectFrom('devices').select(['kds_push_token', 'kds_push_platform']).where('id', '=', a.kds.device_id).executeTakeFirstOrThrow();
    expect(await row()).toEqual({ kds_push_token: 'tok-1', kds_push_platform: 'android' });
    expect((await call('POST', '/api/kds/push-token', { push_token: 'bad token with spaces' })).status).toBe(422);
    expect((await call('POST', '/api/kds/push-token', { push_token: 'x'.repeat(513) })).status).toBe(422);
    expect(await row()).toEqual({ kds_push_token: 'tok-1', kds_push_platform: 'android' });
    await call('POST', '/api/kds/push-token', { push_token: null });
    expect(await row()).toEqual({ kds_push_token: null, kds_push_platform: null });
  });
});

describe('PUT /kds/settings', () => {
  test('the device\'s overrides over the profile; null drops one; GET materialises', async () => {
    const owner = await api.ownerToken(a);
    const p = await api.call('POST', '/api/back-office/kds-profiles', { token: owner, body: { name: 'Busy', settings: { late_after_minutes: 20, sort: 'oldest_first' } } });
    await api.call('POST', `/api/back-office/devices/${a.kds.device_id}/profile`, { token: owner, body: { device_profile_id: p.body.data.id } });
    try {
      const r = await call('PUT', '/api/kds/settings', { late_after_minutes: 5, play_sound: false });
      expect(r.status).toBe(200);
      expect(r.body.data.settings).toEqual({ recall_window_minutes: 30, late_after_minutes: 5, sort: 'oldest_first', show_modifiers: true, play_sound: false });
      expect(r.body.data.overrides).toEqual({ late_after_minutes: 5, play_sound: false });
      expect((await call('GET', '/api/kds/settings')).body).toEqual(r.body);
      const dropped = await call('PUT', '/api/kds/settings', { late_after_minutes: null });
      expect(dropped.body.data.settings.late_after_minutes).toBe(20);
      expect(dropped.body.data.overrides).toEqual({ play_sound: false });
      expect((await call('PUT', '/api/kds/settings', { late_after_minutes: 999 })).status).toBe(422);
      expect((await call('PUT', '/api/kds/settings', { colour: 'red' })).status).toBe(422);
      const row = await tdb.selectFrom('devices').select('kds_settings').where('id', '=', a.kds.device_id).executeTakeFirstOrThrow();
      expect(row.kds_settings).toEqual({ play_sound: false });
    } finally {
      await call('PUT', '/api/kds/settings', { play_sound: null });
      await api.call('POST', `/api/back-office/devices/${a.kds.device_id}/profile`, { token: owner, body: { device_profile_id: null } });
    }
  });
});

describe('GET /kds/items, /kds/categories', () => {
  test('the station\'s categories and items, with the open quantity still to make', async () => {
    const cats = await tdb.selectFrom('categories').select(['id', 'name', 'position']).orderBy('position').orderBy('name').orderBy('id').execute();
    expect(await call('GET', '/api/kds/categories')).toMatchObject({ status: 200, body: { data: cats } });
    const before = (await call('GET', '/api/kds/items')).body.data as { id: string; open_qty: number }[];
    const items = await tdb.selectFrom('items').select(['id', 'name', 'category_id']).orderBy('name').orderBy('id').execute();
    // The seed station serves every category: every categorised item, by name.
    expect(before.map((i) => i.id)).toEqual(items.filter((i) => i.category_id !== null).map((i) => i.id));
    expect(before.length).toBeGreaterThan(1);
    const burger = (x: { id: string; open_qty: number }[]) => x.find((i) => i.id === a.items[0]!.id)!;
    const id = await ticket();
    const after = (await call('GET', '/api/kds/items')).body.data;
    expect(burger(after).open_qty).toBe(burger(before).open_qty + 2);
    await call('PUT', '/api/kds/mark-item', { order_id: id, position: 0, status: 'Ready' });
    expect(burger((await call('GET', '/api/kds/items')).body.data).open_qty).toBe(burger(before).open_qty);
    // An unbound device has no station: nothing.
    await tdb.updateTable('devices').set({ station_id: null }).where('id', '=', a.kds.device_id).execute();
    try {
      expect((await call('GET', '/api/kds/items')).body).toEqual({ data: [] });
      expect((await call('GET', '/api/kds/categories')).body).toEqual({ data: [] });
    } finally {
      await tdb.updateTable('devices').set({ station_id: a.kds.station_id }).where('id', '=', a.kds.device_id).execute();
    }
  });
});

describe('GET /kds/items after an order action', () => {
  test('a ticket bumped ready or complete no longer counts; one taken back to in progress counts again; a recall stays ready', async () => {
    const qty = async () => {
      const data = (await call('GET', '/api/kds/items')).body.data as { id: string; open_qty: number }[];
      const of = (id: string) => data.find((i) => i.id === id)!.open_qty;
      return { burger: of(a.items[0]!.id), fries: of(a.items[1]!.id) };
    };
    const base = await qty();
    const id = await ticket();
    expect(await qty()).toEqual({ burger: base.burger + 2, fries: base.fries + 1 });
    // The order-level bump leaves the lines Queued: the ticket's status decides (was still counted).
    const ready = await call('PUT', `/api/kds/${id}/ready`);
    expect(ready.status).toBe(200);
    expect(ready.body.data.status).toBe('Ready');
    expect(ready.body.data.items.map((i: { status: string }) => i.status)).toEqual(['Queued', 'Queued']);
    expect(await qty()).toEqual(base);
    // A cook taking the order back (Ready -> In Progress): still to make.
    expect((await call('PUT', `/api/kds/${id}/in-progress`)).body.data.status).toBe('In Progress');
    expect(await qty()).toEqual({ burger: base.burger + 2, fries: base.fries + 1 });
    expect((await call('PUT', `/api/kds/${id}/complete`)).body.data.status).toBe('Complete');
    expect(await qty()).toEqual(base);
    // Recall brings the order back to Ready (made, not yet handed over): not counted.
    expect((await call('PUT', `/api/kds/${id}/recall`)).body.data.status).toBe('Ready');
    expect(await qty()).toEqual(base);
    expect((await call('PUT', `/api/kds/${id}/in-progress`)).body.data.status).toBe('In Progress');
    expect(await qty()).toEqual({ burger: base.burger + 2, fries: base.fries + 1 });
    await call('PUT', `/api/kds/${id}/complete`);
  });
});

describe('GET /kds/items in a large catalog', () => {
  test('every item routed to the station, past the first 2000 of the catalog by name; not items sold only elsewhere', async () => {
    const cat = await tdb.selectFrom('categories').select(['id', 'name']).orderBy('id').executeTakeFirstOrThrow();
    const now = new Date();
    const filler = Array.from({ length: 2001 }, (_, i) => ({ id: Bun.randomUUIDv7(), name: `Aa filler ${String(i).padStart(4, '0')}`, unit_price: 100, vat_rate: 6, category: null, created_at: now, updated_at: now }));
    const soup = { id: Bun.randomUUIDv7(), name: 'Zucchini soup', unit_price: 500, vat_rate: 6, category: cat.name, category_id: cat.id, created_at: now, updated_at: now };
    const elsewhere = { id: Bun.randomUUIDv7(), name: 'Zz sold elsewhere', unit_price: 500, vat_rate: 6, category: cat.name, category_id: cat.id, location_ids: [a.locations[1]!.id], created_at: now, updated_at: now };
    await tdb.insertInto('items').values([...filler, soup, elsewhere]).execute();
    try {
      const listed = (await call('GET', '/api/kds/items')).body.data as { id: string; name: string; category_id: string | null; open_qty: number }[];
      // Before: the first 2000 items by name were read, then filtered: the soup was never listed.
      expect(listed.find((i) => i.id === soup.id)).toEqual({ id: soup.id, name: 'Zucchini soup', category_id: cat.id, open_qty: 0 });
      expect(listed.some((i) => i.id === elsewhere.id)).toBe(false);
      // The filler has no category, and the seed station is no fallback: none of it is routed here.
      expect(listed.some((i) => i.name.startsWith('Aa filler'))).toBe(false);
      // As the fallback serving no category of its own: every item no station's category covers.
      const station = await tdb.selectFrom('kitchen_stations').select(['id', 'category_ids', 'is_fallback']).where('id', '=', a.kds.station_id).executeTakeFirstOrThrow();
      await tdb.updateTable('kitchen_stations').set({ is_fallback: true, category_ids: [] }).where('id', '=', station.id).execute();
      try {
        const fallback = (await call('GET', '/api/kds/items')).body.data as { id: string; name: string }[];
        expect(fallback.filter((i) => i.name.startsWith('Aa filler'))).toHaveLength(2001);
        expect(fallback.some((i) => i.id === soup.id)).toBe(true);
      } finally {
        await tdb.updateTable('kitchen_stations').set({ is_fallback: station.is_fallback, category_ids: station.category_ids }).where('id', '=', station.id).execute();
      }
    } finally {
      await tdb.deleteFrom('items').where('id', 'in', [...filler.map((f) => f.id), soup.id, elsewhere.id]).execute();
    }
  });
});

describe('GET /kds/metrics/summary', () => {
  test('waiting, in progress, ready, late and today\'s preparation times from recorded times', async () => {
    const c = await api.seed('kdr-c');
    const token = await api.deviceToken(c, 'kds');
    const cdb = bindTenant(api.deps.db, c.merchant.tenant_database);
    const now = Date.now();
    const ago = (min: number) => new Date(now - min * 60_000);
    const mk = async (queuedMin: number) => ticket({ m: c, at: ago(queuedMin) });
    const waitingLate = await mk(30);
    await mk(1);
    const inProgress = await mk(2);
    await cdb.updateTable('kitchen_tickets').set({ status: 'In Progress', started_at: ago(1) }).where('id', '=', inProgress).execute();
    // Two made ready in the last minutes: 4 and 8 minutes of preparation; one completed.
    const r1 = await mk(5);
    await cdb.updateTable('kitchen_tickets').set({ status: 'Ready', started_at: ago(4), ready_at: ago(1) }).where('id', '=', r1).execute();
    const r2 = await mk(9);
    await cdb.updateTable('kitchen_tickets').set({ status: 'Complete', started_at: ago(8), ready_at: ago(1), completed_at: ago(0) }).where('id', '=', r2).execute();
    const r = await api.call('GET', '/api/kds/metrics/summary', { token, deviceKey: true });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: {
        station_id: c.kds.station_id,
        date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        time_zone: 'Europe/Brussels',
        orders_waiting: 2,
        orders_in_progress: 1,
        orders_ready: 1,
        late_orders: 1,
        late_after_minutes: 15,
        completed_today: 1,
        average_prep_seconds: 360,
        p90_prep_seconds: 480,
      },
    });
    expect(waitingLate).toBeString();
  });
});

describe('GET /back-office/kds-reports/summary', () => {
  const R = '/api/back-office/kds-reports/summary';
  test('per station and per local hour on a date, VIEW_KITCHEN_REPORTS, isolation and the first-party gate', async () => {
    const d = await api.seed('kdr-d');
    const owner = await api.ownerToken(d);
    const ddb = bindTenant(api.deps.db, d.merchant.tenant_database);
    const loc = d.locations[0]!.id;
    // Brussels in November is UTC+1: 10:00Z is 11h local, 12:30Z is 13h local.
    const t1 = await ticket({ m: d, at: new Date('2026-11-20T10:00:00Z') });
    await ddb.updateTable('kitchen_tickets').set({ status: 'Complete', ready_at: new Date('2026-11-20T10:06:00Z'), completed_at: new Date('2026-11-20T10:07:00Z') }).where('id', '=', t1).execute();
    const t2 = await ticket({ m: d, at: new Date('2026-11-20T12:10:00Z') });
    await ddb.updateTable('kitchen_tickets').set({ status: 'Ready', ready_at: new Date('2026-11-20T12:30:00Z') }).where('id', '=', t2).execute();
    // Another day, and a ticket never made ready: not counted.
    const t3 = await ticket({ m: d, at: new Date('2026-11-19T12:00:00Z') });
    await ddb.updateTable('kitchen_tickets').set({ ready_at: new Date('2026-11-19T12:05:00Z') }).where('id', '=', t3).execute();
    await ticket({ m: d, at: new Date('2026-11-20T12:00:00Z') });
    const r = await api.call('GET', `${R}?location_id=${loc}&date=2026-11-20`, { token: owner });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      data: {
        location_id: loc,
        date: '2026-11-20',
        time_zone: 'Europe/Brussels',
        late_after_minutes: 15,
        totals: { orders: 2, average_prep_seconds: 780, p90_prep_seconds: 1200, late_orders: 1 },
        stations: [{ station_id: d.kds.station_id, name: 'Kitchen', orders: 2, average_prep_seconds: 780, p90_prep_seconds: 1200, late_orders: 1 }],
        hours: [
          { hour: 11, orders: 1, average_prep_seconds: 360, p90_prep_seconds: 360, late_orders: 0 },
          { hour: 13, orders: 1, average_prep_seconds: 1200, p90_prep_seconds: 1200, late_orders: 1 },
        ],
      },
    });
    expect((await api.call('GET', `${R}?location_id=${loc}&date=2026-11-20&late_after_minutes=30`, { token: owner })).body.data.totals.late_orders).toBe(0);
    // The location spelled in upper case is the same location (before: 403 for the owner).
    expect((await api.call('GET', `${R}?location_id=${loc.toUpperCase()}&date=2026-11-20`, { token: owner })).body.data.totals).toMatchObject({ orders: 2 });
    // Bad input is 422; another merchant's location 404; no permission or outside the grant 403.
    expect((await api.call('GET', `${R}?location_id=${loc}&date=2026-13-40`, { token: owner })).status).toBe(422);
    expect((await api.call('GET', `${R}`, { token: owner })).status).toBe(422);
    expect(await api.call('GET', `${R}?location_id=${a.locations[0]!.id}`, { token: owner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
    const denied = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };
    const none = await limitedUserToken(api, d, ['VIEW_DEVICES'], [loc]);
    expect(await api.call('GET', `${R}?location_id=${loc}`, { token: none })).toMatchObject(denied);
    const other = await limitedUserToken(api, d, ['VIEW_KITCHEN_REPORTS'], [d.locations[1]!.id]);
    expect(await api.call('GET', `${R}?location_id=${loc}`, { token: other })).toMatchObject(denied);
    const viewer = await limitedUserToken(api, d, ['VIEW_KITCHEN_REPORTS'], [loc]);
    expect((await api.call('GET', `${R}?location_id=${loc}&date=2026-11-20`, { token: viewer })).body).toEqual(r.body);
    expect((await api.call('GET', `${R}?location_id=${loc}`, { token: kds, deviceKey: true })).status).toBe(403);
    await api.deps.db.updateTable('merchants').set({ pos_provider: null }).where('id', '=', d.merchant.id).execute();
    expect(await api.call('GET', `${R}?location_id=${loc}`, { token: owner })).toMatchObject({ status: 403, body: { message: FIRST_PARTY_POS_REQUIRED } });
  });
});

describe('gating', () => {
  test('another merchant\'s device sees its own station only', async () => {
    const mine = await ticket();
    const ids = (await call('GET', '/api/kds/orders', undefined, kdsB)).body.data.map((o: { id: string }) => o.id);
    expect(ids).not.toContain(mine);
  });
});
