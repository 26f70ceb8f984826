import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, dbQueryCount, type DatabaseHandle, type TenantDb } from '@pos/db';
import { dropMerchant } from '../merchants/create-merchant.ts';
import { seedDemo, type DemoSeedResult } from '../seed/demo-seed.ts';
import { seedDemoMerchant, type DemoMerchant } from '../seed/demo-merchant.test-support.ts';
import { createKitchenTickets, createKitchenTicketsMany, type CreatedTicket, type KitchenOrderInput } from './tickets.ts';

let merchant: DemoMerchant;
let h: DatabaseHandle;
let m: DemoSeedResult;
let tdb: TenantDb;
let drinks: string;
let food: string;

beforeAll(async () => {
  merchant = await seedDemoMerchant('kt');
  ({ h, m, tdb } = merchant);
  const cats = await tdb.selectFrom('categories').select(['id', 'name']).execute();
  drinks = cats.find((c) => c.name === 'Drinks')!.id;
  food = cats.find((c) => c.name === 'Food')!.id;
});
afterAll(() => merchant.close());

const line = (position: number, category_id: string | null, name = `Line ${position}`) => ({ position, item_id: m.items[0]!.id, category_id, name, qty: position + 1, modifiers: [{ name: 'No ice' }] });
const order = (lines: ReturnType<typeof line>[], locationId = m.locations[0]!.id) => ({ source: 'transaction' as const, sourceId: crypto.randomUUID(), locationId, orderNo: '17', at: new Date('2026-11-23T12:00:00Z'), lines });

describe('createKitchenTickets', () => {
  test('the seed station serving every category gets one ticket with every line', async () => {
    const o = order([line(0, drinks), line(1, food)]);
    const created = await createKitchenTickets(tdb, o);
    expect(created).toEqual([{ id: expect.any(String), station_id: m.kds.station_id, location_id: m.locations[0]!.id, order_no: '17', lines: 2, event: expect.any(Object) }]);
    // The `created` kitchen event, numbered at the location and stored for catch-up.
    const ev = created[0]!.event;
    expect(ev).toMatchObject({ type: 'kitchen.ticket', action: 'created', location_id: m.locations[0]!.id, station_id: m.kds.station_id, order: { id: created[0]!.id, order_no: '17', status: 'Queued' } });
    const stored = await tdb.selectFrom('kitchen_events').selectAll().where('location_id', '=', m.locations[0]!.id).where('seq', '=', String(ev.seq)).executeTakeFirstOrThrow();
    expect(stored.payload).toEqual(JSON.parse(JSON.stringify(ev)));
    const ticket = await tdb.selectFrom('kitchen_tickets').selectAll().where('id', '=', created[0]!.id).executeTakeFirstOrThrow();
    expect(ticket).toMatchObject({ status: 'Queued', held: false, prioritized: false, source: 'transaction', source_id: o.sourceId, started_at: null });
    const lines = await tdb.selectFrom('kitchen_ticket_lines').selectAll().where('ticket_id', '=', ticket.id).orderBy('position').execute();
    expect(lines.map((l) => [l.position, l.name, l.qty, l.status, l.modifiers])).toEqual([
      [0, 'Line 0', 1, 'Queued', [{ name: 'No ice' }]],
      [1, 'Line 1', 2, 'Queued', [{ name: 'No ice' }]],
    ]);
    // A re-run (retried job) writes nothing new.
    expect(await createKitchenTickets(tdb, o)).toEqual([]);
    expect((await tdb.selectFrom('kitchen_tickets').select('id').where('source_id', '=', o.sourceId).execute()).length).toBe(1);
  });

  test('lines split by category across stations; uncategorised lines go to the fallback; none without one', async () => {
    const loc = m.locations[1]!.id;
    const bar = Bun.randomUUIDv7();
    const pass = Bun.randomUUIDv7();
    const now = new Date();
    await tdb.insertInto('kitchen_stations').values({ id: bar, location_id: loc, name: 'Bar', category_ids: [drinks], created_at: now, updated_at: now }).execute();
    const lonely = order([line(0, drinks), line(1, food), line(2, null)], loc);
    const first = await createKitchenTickets(tdb, lonely);
    // No fallback yet: the food and uncategorised lines reach no station.
    expect(first.map((t) => [t.station_id, t.lines])).toEqual([[bar, 1]]);
    await tdb.insertInto('kitchen_stations').values({ id: pass, location_id: loc, name: 'Pass', is_fallback: true, created_at: now, updated_at: now }).execute();
    const created = await createKitchenTickets(tdb, order([line(0, drinks), line(1, food), line(2, null)], loc));
    const byStation = Object.fromEntries(created.map((t) => [t.station_id, t.lines]));
    expect(byStation).toEqual({ [bar]: 1, [pass]: 2 });
    const passLines = await tdb.selectFrom('kitchen_ticket_lines').select('position').where('ticket_id', '=', created.find((t) => t.station_id === pass)!.id).orderBy('position').execute();
    expect(passLines.map((l) => l.position)).toEqual([1, 2]);
  });

  test('an order without lines makes no ticket', async () => {
    expect(await createKitchenTickets(tdb, order([]))).toEqual([]);
  });
});

/**
 * The batch version against the one-by-one calls: two fresh merchants with the same stations (the
 * stations created here have the same ids in both, so routing by id order is the same); one gets the
 * orders one by one, the other all at once. Everything is compared once each merchant's ids are
 * replaced by names (locations, categories, items, stations; tickets by creation order).
 */
describe('createKitchenTicketsMany', () => {
  interface Tenant {
    m: DemoSeedResult;
    tdb: TenantDb;
    loc: [string, string];
    cat: { drinks: string; food: string };
    names: Map<string, string>;
  }
  const ids = { bar: Bun.randomUUIDv7(), terrace: Bun.randomUUIDv7(), pass: Bun.randomUUIDv7(), bar1: Bun.randomUUIDv7(), pass1: Bun.randomUUIDv7() };
  let one: Tenant;
  let many: Tenant;

  async function tenant(prefix: string): Promise<Tenant> {
    const seeded = await seedDemo(h.db, { slug: `${prefix}-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: 'k'.repeat(20), pinPepper: 'p'.repeat(20) });
    const t = bindTenant(h.db, seeded.merchant.tenant_database);
    const cats = await t.selectFrom('categories').select(['id', 'name']).execute();
    const cat = { drinks: cats.find((c) => c.name === 'Drinks')!.id, food: cats.find((c) => c.name === 'Food')!.id };
    const loc: [string, string] = [seeded.locations[0]!.id, seeded.locations[1]!.id];
    const now = new Date();
    // Location 0: the seed's Kitchen takes food, Bar and Terrace both take drinks, Pass the rest.
    // Location 1: Bar1 takes drinks, Pass1 the rest.
    await t.updateTable('kitchen_stations').set({ category_ids: [cat.food] }).where('id', '=', seeded.kds.station_id).execute();
    await t
      .insertInto('kitchen_stations')
      .values([
        { id: ids.bar, location_id: loc[0], name: 'Bar', category_ids: [cat.drinks], created_at: now, updated_at: now },
        { id: ids.terrace, location_id: loc[0], name: 'Terrace', category_ids: [cat.drinks], created_at: now, updated_at: now },
        { id: ids.pass, location_id: loc[0], name: 'Pass', is_fallback: true, created_at: now, updated_at: now },
        { id: ids.bar1, location_id: loc[1], name: 'Bar1', category_ids: [cat.drinks], created_at: now, updated_at: now },
        { id: ids.pass1, location_id: loc[1], name: 'Pass1', is_fallback: true, created_at: now, updated_at: now },
      ])
      .execute();
    const names = new Map<string, string>([
      [loc[0], 'L0'],
      [loc[1], 'L1'],
      [cat.drinks, 'drinks'],
      [cat.food, 'food'],
      [seeded.kds.station_id, 'Kitchen'],
      ...Object.entries(ids).map(([name, id]) => [id, name] as [string, string]),
      ...seeded.items.map((i) => [i.id, `item:${i.name}`] as [string, string]),
    ]);
    return { m: seeded, tdb: t, loc, cat, names };
  }

  beforeAll(async () => {
    one = await tenant('ktm-one');
    many = await tenant('ktm-many');
  }, 30_000);
  afterAll(async () => {
    for (const t of [one, many]) if (t) await dropMerchant(h.db, { id: t.m.merchant.id, tenant_database: t.m.merchant.tenant_database });
  });

  type Cat = 'drinks' | 'food' | null;
  interface OrderSpec {
    sourceId: string;
    loc: 0 | 1;
    cats: Cat[];
    source?: 'pos_order';
    fireNo?: number;
    at?: string;
  }
  const register = crypto.randomUUID();
  const first = crypto.randomUUID();
  // Category routing, the fallback, an order without lines, a register order fired twice, and the
  // same order twice in one batch (the second writes nothing, as a second call would).
  const specs: OrderSpec[] = [
    { sourceId: first, loc: 0, cats: ['drinks', 'food', null] },
    { sourceId: crypto.randomUUID(), loc: 1, cats: ['food', 'drinks'] },
    { sourceId: crypto.randomUUID(), loc: 0, cats: [] },
    { sourceId: crypto.randomUUID(), loc: 1, cats: [null] },
    { sourceId: register, loc: 0, cats: ['food', 'drinks'], source: 'pos_order', fireNo: 2 },
    { sourceId: first, loc: 0, cats: ['drinks', 'food', null] },
    { sourceId: register, loc: 0, cats: [null, 'drinks'], source: 'pos_order', fireNo: 3, at: '2026-11-23T12:05:00Z' },
    { sourceId: crypto.randomUUID(), loc: 0, cats: ['drinks', 'drinks'], at: '2026-11-23T12:07:30Z' },
  ];
  const ordersFor = (t: Tenant, list = specs): KitchenOrderInput[] =>
    list.map((sp, i) => ({
      source: sp.source ?? 'transaction',
      sourceId: sp.sourceId,
      locationId: t.loc[sp.loc],
      orderNo: `A${i}`,
      ...(sp.fireNo ? { fireNo: sp.fireNo } : {}),
      at: new Date(sp.at ?? '2026-11-23T12:00:00Z'),
      lines: sp.cats.map((c, position) => ({
        position,
        item_id: t.m.items[position % t.m.items.length]!.id,
        category_id: c === null ? null : t.cat[c],
        name: `${c ?? 'misc'} ${position}`,
        qty: position + 1,
        modifiers: position % 2 ? [{ name: 'No ice', price: 0 }] : [],
        ...(sp.source ? { line_ref: `${sp.sourceId}-${sp.fireNo}-${position}` } : {}),
      })),
    }));

  /** The value with every id of the merchant replaced by its name, tickets by `T<creation index>`. */
  function named(t: Tenant, tickets: readonly { id: string }[], value: unknown): unknown {
    const map = new Map([...t.names, ...tickets.map((k, i) => [k.id, `T${i}`] as [string, string])]);
    const walk = (v: unknown): unknown => {
      if (typeof v === 'string') return map.get(v) ?? v;
      if (Array.isArray(v)) return v.map(walk);
      if (v instanceof Date) return v.toISOString();
      if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
      return v;
    };
    return walk(value);
  }

  /** What the merchant's kitchen tables hold (event creation times left out). */
  async function stored(t: Tenant) {
    return {
      tickets: await t.tdb.selectFrom('kitchen_tickets').selectAll().orderBy('id').execute(),
      lines: await t.tdb.selectFrom('kitchen_ticket_lines').selectAll().orderBy('ticket_id').orderBy('position').execute(),
      events: await t.tdb.selectFrom('kitchen_events').select(['location_id', 'seq', 'station_id', 'ticket_id', 'action', 'payload']).orderBy('ticket_id').execute(),
      cursors: await t.tdb.selectFrom('kitchen_event_cursors').selectAll().orderBy('last_seq').execute(),
    };
  }

  test('many orders over two locations: the same tickets, lines and events as one call per order', async () => {
    const byOne: CreatedTicket[] = [];
    for (const o of ordersFor(one)) byOne.push(...(await createKitchenTickets(one.tdb, o)));
    const byMany = await many.tdb.transaction().execute((tx) => createKitchenTicketsMany(tx, ordersFor(many)));

    // The routing, spelled out: [order number, station, number of lines].
    expect(byMany.map((t) => [t.order_no, many.names.get(t.station_id), t.lines])).toEqual([
      ['A0', 'bar', 1],
      ['A0', 'terrace', 1],
      ['A0', 'Kitchen', 1],
      ['A0', 'pass', 1],
      ['A1', 'pass1', 1],
      ['A1', 'bar1', 1],
      ['A3', 'pass1', 1],
      ['A4', 'Kitchen', 1],
      ['A4', 'bar', 1],
      ['A4', 'terrace', 1],
      ['A6', 'pass', 1],
      ['A6', 'bar', 1],
      ['A6', 'terrace', 1],
      ['A7', 'bar', 2],
      ['A7', 'terrace', 2],
    ]);
    // Events numbered per location from 1, without gaps, in ticket order.
    const seqs = (loc: string) => byMany.filter((t) => t.location_id === loc).map((t) => t.event.seq);
    expect(seqs(many.loc[0])).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    expect(seqs(many.loc[1])).toEqual([1, 2, 3]);
    expect(byMany.every((t) => t.event.order.id === t.id && t.event.station_id === t.station_id && t.event.action === 'created')).toBe(true);

    // Field by field, ids by name: the returned tickets and events, then every stored row.
    expect(named(many, byMany, byMany)).toEqual(named(one, byOne, byOne));
    const [a, b] = [await stored(one), await stored(many)];
    expect(b.tickets.length).toBe(15);
    expect(b.lines.length).toBe(17);
    expect(named(many, byMany, b)).toEqual(named(one, byOne, a));
    expect(b.cursors.map((c) => [many.names.get(c.location_id), Number(c.last_seq)])).toEqual([
      ['L1', 3],
      ['L0', 12],
    ]);
    // A stored event is the returned one.
    expect(b.events.find((e) => e.ticket_id === byMany[13]!.id)!.payload).toEqual(JSON.parse(JSON.stringify(byMany[13]!.event)));
  });

  test('a second call with the same orders creates nothing and returns nothing', async () => {
    const before = await stored(many);
    expect(await createKitchenTicketsMany(many.tdb, ordersFor(many))).toEqual([]);
    expect(await stored(many)).toEqual(before);
  });

  test('50 orders without kitchen printers cost as many statements as one order', async () => {
    const fresh = (n: number) => ordersFor(many, Array.from({ length: n }, (_, i) => ({ sourceId: crypto.randomUUID(), loc: (i % 2) as 0 | 1, cats: ['drinks', 'food', null] })));
    const single = fresh(1);
    const fifty = fresh(50);
    let q0 = dbQueryCount();
    const oneTickets = await createKitchenTicketsMany(many.tdb, single);
    const forOne = dbQueryCount() - q0;
    q0 = dbQueryCount();
    const fiftyTickets = await createKitchenTicketsMany(many.tdb, fifty);
    const forFifty = dbQueryCount() - q0;
    expect(oneTickets.length).toBe(4);
    // 25 orders at each location: 4 tickets at location 0, 2 at location 1.
    expect(fiftyTickets.length).toBe(25 * 4 + 25 * 2);
    // Stations and kitchen printers, then tickets, lines, event counters and events in one statement
    // that commits as it ends (no transaction: the counter rows are not held across a round trip).
    expect(forOne).toBe(3);
    expect(forFifty).toBe(forOne);
    // Numbers continue each location's: 12 + 4 (the single order) at location 0, 3 at location 1.
    const seqs = (loc: string) => fiftyTickets.filter((t) => t.location_id === loc).map((t) => t.event.seq);
    expect(seqs(many.loc[0])).toEqual(Array.from({ length: 100 }, (_, i) => 17 + i));
    expect(seqs(many.loc[1])).toEqual(Array.from({ length: 50 }, (_, i) => 4 + i));
  });

  test('a kitchen printer on one station: only that station\'s tickets are queued for printing, once', async () => {
    const now = new Date();
    const printer = Bun.randomUUIDv7();
    await many.tdb
      .insertInto('printers')
      .values({ id: printer, location_id: many.loc[0], mac: '00:11:62:AA:00:01', paper_width_mm: 80, state: 'configured', name: 'Bar printer', role: 'kitchen', station_id: ids.bar, last_reported_at: now, created_at: now, updated_at: now })
      .execute();
    const orders = ordersFor(many, [
      { sourceId: crypto.randomUUID(), loc: 0, cats: ['food', 'drinks', null] },
      { sourceId: crypto.randomUUID(), loc: 1, cats: ['drinks'] },
      { sourceId: crypto.randomUUID(), loc: 0, cats: ['drinks'] },
    ]);
    const q0 = dbQueryCount();
    const created = await createKitchenTicketsMany(many.tdb, orders);
    const statements = dbQueryCount() - q0;
    const bar = created.filter((t) => t.station_id === ids.bar);
    expect(bar.map((t) => t.order_no)).toEqual(['A0', 'A2']);
    const jobs = await many.tdb.selectFrom('print_jobs').select(['printer_id', 'kind', 'source_key', 'document']).orderBy('seq').execute();
    expect(jobs.map((j) => [j.printer_id, j.kind, j.source_key])).toEqual(bar.map((t) => [printer, 'kitchen_ticket', `ticket:${t.id}`]));
    expect(jobs[0]!.document).toContain('Bar');
    expect(jobs[0]!.document).toContain('Order A0');
    expect(jobs[0]!.document).toContain('drinks 1');
    expect(jobs[0]!.document).not.toContain('food 0');
    // Stations and printers, then in one transaction (begin, commit) the tickets' statement, station
    // names and time zones once, and two per job (insert, notify).
    expect(statements).toBe(5 + 2 + 2 * bar.length);
    expect(await createKitchenTicketsMany(many.tdb, orders)).toEqual([]);
    expect((await many.tdb.selectFrom('print_jobs').select('id').execute()).length).toBe(2);
  });
});
