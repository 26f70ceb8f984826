import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { planOf, sentQueries } from '../../testing/query-plans.ts';

// The omni-channel order stream (spec 2) against real PostgreSQL: orders of every channel and state
// written as the payment and kitchen paths leave them (a paid transaction, its kitchen tickets).
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let pos: string;
let staff: string;
const ids: Record<string, string> = {};
const MIN = 60_000;
let orderNo = 0;
/** A second station, so an order can have two tickets (one per station). */
const barStation = crypto.randomUUID();

const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);

interface OrderSpec {
  channel: 'kiosk' | 'online_ordering' | 'table_qr';
  dining?: string | null;
  status?: 'Complete' | 'Awaiting Payment' | 'Cancelled';
  paidAgo: number;
  /** Ticket statuses (one ticket per entry) and when the complete ones completed. */
  tickets?: ('Queued' | 'In Progress' | 'Ready' | 'Complete')[];
  completedAgo?: number;
  scheduledIn?: number;
  location?: number;
  orderStatus?: string;
}

async function addOrder(key: string, o: OrderSpec, seed = m): Promise<string> {
  const db = bindTenant(api.deps.db, seed.merchant.tenant_database);
  const id = crypto.randomUUID();
  const no = ++orderNo;
  const now = Date.now();
  const paid = o.status === undefined || o.status === 'Complete';
  const locationId = seed.locations[o.location ?? 0]!.id;
  await db
    .insertInto('transactions')
    .values({
      id,
      location_id: locationId,
      device_id: seed.kiosk.device_id,
      channel: o.channel,
      order_no: no,
      status: o.status ?? 'Complete',
      order_status: o.orderStatus ?? (paid ? 'Queued' : null),
      payment_provider: 'card-b',
      payment_snapshot: JSON.stringify({}),
      idempotency_key: `idemp_${id}_${now}`,
      all_idempotency_keys: [`idemp_${id}_${now}`],
      receipt_no: paid ? no : null,
      subtotal: 1000 + no,
      discount: 0,
      vat: 100,
      total: 1000 + no,
      by_vat_rate: JSON.stringify([]),
      offers: JSON.stringify([]),
      menu_version: 1,
      customer_id: null,
      loyalty_token: null,
      cart_session_id: null,
      dining_option: o.dining ?? null,
      customer_name: key === 'a' ? 'Anna' : null,
      scheduled_for: o.scheduledIn === undefined ? null : new Date(now + o.scheduledIn),
      completed_at: paid ? new Date(now - o.paidAgo) : null,
      created_at: new Date(now - o.paidAgo - 1000),
      updated_at: new Date(now - o.paidAgo),
    })
    .execute();
  await db
    .insertInto('transaction_lines')
    .values([
      { transaction_id: id, position: 0, item_id: seed.items[0]!.id, category_id: null, name: 'Espresso', qty: 2, unit_price: 280, vat_rate: 21, gross: 560, discount: 0, total: 560, modifiers: JSON.stringify([]), variant: null },
      { transaction_id: id, position: 1, item_id: seed.items[3]!.id, category_id: null, name: 'Croissant', qty: 1, unit_price: 220, vat_rate: 6, gross: 220, discount: 0, total: 220, modifiers: JSON.stringify([]), variant: null },
    ])
    .execute();
  for (const [i, status] of (o.tickets ?? []).entries()) {
    await db
      .insertInto('kitchen_tickets')
      .values({
        id: crypto.randomUUID(),
        location_id: locationId,
        station_id: i === 0 ? seed.kds.station_id : barStation,
        source: 'transaction',
        source_id: id,
        order_no: String(no),
        status,
        queued_at: new Date(now - o.paidAgo),
        completed_at: status === 'Complete' ? new Date(now - (o.completedAgo ?? 0)) : null,
        updated_at: new Date(now),
      })
      .execute();
  }
  ids[key] = id;
  return id;
}

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('chorders');
  other = await api.seed('chorders-b');
  pos = await api.deviceToken(m, 'pos');
  staff = await api.staffLogin(m, 'cashier', pos);
  await tdb().insertInto('kitchen_stations').values({ id: barStation, location_id: m.locations[0]!.id, name: 'Bar', category_ids: [], created_at: new Date(), updated_at: new Date() }).execute();
  await addOrder('a', { channel: 'kiosk', dining: 'For Here', paidAgo: 10 * MIN, tickets: ['Queued'] });
  await addOrder('b', { channel: 'kiosk', dining: 'Takeaway', paidAgo: 5 * MIN, tickets: ['In Progress', 'Queued'] });
  await addOrder('f', { channel: 'online_ordering', dining: 'For Here', paidAgo: 4 * MIN });
  await addOrder('c', { channel: 'online_ordering', dining: 'Delivery', paidAgo: 3 * MIN });
  await addOrder('d', { channel: 'online_ordering', dining: 'Pickup', paidAgo: 2 * MIN, tickets: ['Ready', 'Complete'], completedAgo: MIN });
  await addOrder('e', { channel: 'table_qr', dining: 'Dine In', paidAgo: 1 * MIN });
  await addOrder('g', { channel: 'online_ordering', dining: 'Takeout', paidAgo: 20 * MIN, scheduledIn: 3 * 60 * MIN });
  await addOrder('h', { channel: 'kiosk', dining: null, paidAgo: 3 * 60 * MIN, tickets: ['Complete', 'Complete'], completedAgo: 2 * 60 * MIN });
  await addOrder('old', { channel: 'kiosk', paidAgo: 26 * 60 * MIN, tickets: ['Complete'], completedAgo: 25 * 60 * MIN });
  await addOrder('unpaid', { channel: 'kiosk', status: 'Awaiting Payment', paidAgo: MIN });
  await addOrder('cancelled', { channel: 'kiosk', status: 'Cancelled', paidAgo: MIN });
  await addOrder('cancelledKitchen', { channel: 'kiosk', paidAgo: MIN, orderStatus: 'Cancelled' });
  await addOrder('elsewhere', { channel: 'kiosk', paidAgo: MIN, location: 1 });
  await addOrder('foreign', { channel: 'kiosk', paidAgo: MIN }, other);
});
afterAll(() => api.close());

const list = (query: string, o: { staffToken?: string } = {}) => api.call('GET', `/api/pos/channel-orders${query}`, { token: pos, deviceKey: true, staffToken: o.staffToken ?? staff });
const show = (id: string) => api.call('GET', `/api/pos/channel-orders/${id}`, { token: pos, deviceKey: true, staffToken: staff });
const keysOf = (data: { id: string }[]) => data.map((d) => Object.entries(ids).find(([, v]) => v === d.id)![0]);

describe('GET /pos/channel-orders', () => {
  test('active: paid orders not complete in the kitchen, oldest payment first, buckets and channels as sorted objects', async () => {
    const r = await list('?view=active');
    expect(r.status).toBe(200);
    expect(keysOf(r.body.data)).toEqual(['a', 'b', 'f', 'c', 'd', 'e']);
    expect(r.body.total).toBe(6);
    // Exact text: keys sorted, zero counts absent.
    expect(r.text).toContain('"fulfillment":{"all":6,"delivery":1,"dine_in":1,"pickup":1,"self_serve":3}');
    expect(r.text).toContain('"channels":{"Kiosk":2,"Online Ordering":3,"Table Qr Ordering":1}');
    const a = r.body.data[0];
    expect(a).toEqual({
      id: ids.a,
      order_no: 1,
      channel: 'Kiosk',
      dining_option: 'For Here',
      delivery_address: null,
      fulfillment: 'self_serve',
      customer_name: 'Anna',
      customer_email: null,
      customer_phone: null,
      kitchen_status: 'Queued',
      payment_status: 'Complete',
      total: 1001,
      item_count: 3,
      paid_at: expect.any(String),
      scheduled_for: null,
      completed_at: null,
      table: null,
    });
    expect(Object.fromEntries(r.body.data.map((o: any) => [keysOf([o])[0], [o.fulfillment, o.kitchen_status]]))).toEqual({
      a: ['self_serve', 'Queued'],
      b: ['self_serve', 'In Progress'],
      f: ['dine_in', 'Queued'],
      c: ['delivery', 'Queued'],
      d: ['pickup', 'Ready'],
      e: ['self_serve', 'Queued'],
    });
  });

  test('channel filters the rows and the buckets; dining_option filters the rows and the channels', async () => {
    const kiosk = await list('?view=active&channel=Kiosk');
    expect(keysOf(kiosk.body.data)).toEqual(['a', 'b']);
    expect(kiosk.body.total).toBe(2);
    expect(kiosk.text).toContain('"fulfillment":{"all":2,"self_serve":2}');
    expect(kiosk.text).toContain('"channels":{"Kiosk":2,"Online Ordering":3,"Table Qr Ordering":1}');

    const selfServe = await list('?view=active&dining_option=self_serve');
    expect(keysOf(selfServe.body.data)).toEqual(['a', 'b', 'e']);
    expect(selfServe.text).toContain('"channels":{"Kiosk":2,"Table Qr Ordering":1}');
    expect(selfServe.text).toContain('"fulfillment":{"all":6,"delivery":1,"dine_in":1,"pickup":1,"self_serve":3}');

    const both = await list('?view=active&channel=Online%20Ordering&dining_option=delivery');
    expect(keysOf(both.body.data)).toEqual(['c']);
    expect(both.body).toMatchObject({ total: 1, fulfillment: { all: 3, delivery: 1, dine_in: 1, pickup: 1 }, channels: { 'Online Ordering': 1 } });
    expect((await list('?view=active&dining_option=all')).body.total).toBe(6);
  });

  test('paging: per_page and page over the same order; total is the envelope total', async () => {
    const p2 = await list('?view=active&per_page=2&page=2');
    expect(keysOf(p2.body.data)).toEqual(['f', 'c']);
    expect(p2.body.total).toBe(6);
    const past = await list('?view=active&per_page=5&page=3');
    expect(past.body.data).toEqual([]);
    expect(past.body.total).toBe(6);
  });

  test('scheduled and completed views; an empty answer has {} objects', async () => {
    const scheduled = await list('?view=scheduled');
    expect(keysOf(scheduled.body.data)).toEqual(['g']);
    expect(scheduled.body.data[0]).toMatchObject({ fulfillment: 'pickup', scheduled_for: expect.any(String) });
    const completed = await list('?view=completed');
    expect(keysOf(completed.body.data)).toEqual(['h']);
    expect(completed.body.data[0]).toMatchObject({ kitchen_status: 'Complete', completed_at: expect.any(String) });
    expect(completed.text).toContain('"fulfillment":{"all":1,"self_serve":1}');
    const empty = await list('?view=scheduled&channel=Kiosk');
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('"data":[],"total":0,"fulfillment":{},"channels":{"Online Ordering":1}');
  });

  test('a table QR order names its table, where staff take it (before: no table anywhere in the stream)', async () => {
    const section = Bun.randomUUIDv7();
    const session = Bun.randomUUIDv7();
    const now = new Date();
    await tdb().insertInto('table_sections').values({ id: section, location_id: m.locations[0]!.id, name: 'Terrace', tables: 9, created_at: now, updated_at: now }).execute();
    await tdb().insertInto('table_sessions').values({ id: session, location_id: m.locations[0]!.id, table_section_id: section, table_number: 4, opened_at: now }).execute();
    await tdb().updateTable('transactions').set({ table_session_id: session }).where('id', '=', ids.e!).execute();
    try {
      const r = await list('?view=active');
      expect(r.body.data.find((o: { id: string }) => o.id === ids.e)).toMatchObject({ channel: 'Table Qr Ordering', table: 'Terrace 4' });
      expect(r.body.data.filter((o: { table: string | null }) => o.table !== null).map((o: { id: string }) => o.id)).toEqual([ids.e]);
      expect((await show(ids.e!)).body).toMatchObject({ table: 'Terrace 4' });
    } finally {
      await tdb().updateTable('transactions').set({ table_session_id: null }).where('id', '=', ids.e!).execute();
    }
  });

  test('view is required and every filter takes only its listed values (422 on the field)', async () => {
    const missing = await list('');
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({ view: ['The view field is required.'] });
    expect((await list('?view=open')).body.errors).toEqual({ view: ['The selected view is invalid. Accepted: active, scheduled, completed.'] });
    expect((await list('?view=active&channel=kiosk')).body.errors).toEqual({ channel: ['The selected channel is invalid. Accepted: Kiosk, Online Ordering, Table Qr Ordering, Delivery.'] });
    expect((await list('?view=active&dining_option=For%20Here')).body.errors).toEqual({
      dining_option: ['The selected dining_option is invalid. Accepted: all, dine_in, self_serve, pickup, delivery.'],
    });
    expect((await list('?view=active&per_page=1000')).status).toBe(422);
  });

  test('the stream reads the lines and kitchen tickets of the orders it shows only, by their keys (before: every line of the merchant summed on each poll)', async () => {
    // At a busy merchant's size (600k lines, 778k tickets) summing every line and grouping every ticket
    // of the location took 2-3.9 s a poll; per shown order it is ~30 ms (twenty-sixth session).
    const sent = await sentQueries(api.deps.db, async () => expect((await list('?view=active')).status).toBe(200));
    const stream = sent.filter((q) => q.sql.includes('"transaction_lines"') && q.sql.includes('"kitchen_tickets"'));
    expect(stream).toHaveLength(1);
    const plan = JSON.parse(await planOf(api.deps.db, stream[0]!, { format: 'json' }));
    // Every read of either table, with the condition its index answers.
    const reads: { relation: string; cond: string | null }[] = [];
    const walk = (n: any) => {
      if (n['Relation Name'] === 'transaction_lines' || n['Relation Name'] === 'kitchen_tickets') reads.push({ relation: n['Relation Name'], cond: n['Index Cond'] ?? n['Recheck Cond'] ?? null });
      for (const c of n.Plans ?? []) walk(c);
    };
    walk(plan[0].Plan);
    expect(reads.sort((a, b) => a.relation.localeCompare(b.relation))).toEqual([
      { relation: 'kitchen_tickets', cond: expect.stringMatching(/source_id = t\.id/) },
      { relation: 'transaction_lines', cond: expect.stringMatching(/transaction_id = t\.id/) },
    ]);
    expect(JSON.stringify(plan)).not.toContain('"Seq Scan"');
  });

  test('staff routes: no staff token is 401, another device type 403', async () => {
    const r = await api.call('GET', '/api/pos/channel-orders?view=active', { token: pos, deviceKey: true });
    expect(r.status).toBe(401);
    expect(r.body).toEqual({ message: 'Invalid POS staff token' });
    const kiosk = await api.deviceToken(m, 'kiosk');
    expect((await api.call('GET', '/api/pos/channel-orders?view=active', { token: kiosk, deviceKey: true })).status).toBe(403);
  });
});

describe('GET /pos/channel-orders/{id}', () => {
  test('an order of the stream with its lines and totals', async () => {
    const r = await show(ids.d!);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: ids.d, view: 'active', channel: 'Online Ordering', dining_option: 'Pickup', fulfillment: 'pickup', kitchen_status: 'Ready', receipt_no: expect.any(Number), tip_amount: 0 });
    expect(r.body.lines).toEqual([
      { name: 'Espresso', qty: 2, unit_price: 280, total: 560, modifiers: [], variant: null },
      { name: 'Croissant', qty: 1, unit_price: 220, total: 220, modifiers: [], variant: null },
    ]);
    expect((await show(ids.h!)).body).toMatchObject({ view: 'completed' });
    expect((await show(ids.g!)).body).toMatchObject({ view: 'scheduled' });
  });

  test('the same 404 for another location, unpaid, cancelled, completed over 24 hours, another merchant, unknown and malformed ids', async () => {
    for (const key of ['elsewhere', 'unpaid', 'cancelled', 'cancelledKitchen', 'old', 'foreign']) {
      const r = await show(ids[key]!);
      expect([key, r.status, r.body]).toEqual([key, 404, { message: 'Unable to locate the order you requested.' }]);
    }
    for (const id of [crypto.randomUUID(), 'not-an-id']) expect((await show(id)).body).toEqual({ message: 'Unable to locate the order you requested.' });
    // None of them is in any list either.
    const listed = new Set<string>();
    for (const v of ['active', 'scheduled', 'completed']) for (const o of (await list(`?view=${v}&per_page=100`)).body.data) listed.add(o.id);
    for (const key of ['elsewhere', 'unpaid', 'cancelled', 'cancelledKitchen', 'old', 'foreign']) expect(listed.has(ids[key]!)).toBe(false);
    expect(listed.size).toBe(8);
  });
});
