import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, createDatabase, migrateCentral, type DatabaseHandle, type TenantDb } from '@pos/db';
import { dropMerchant } from '../merchants/create-merchant.ts';
import { seedDemo, type DemoSeedResult } from '../seed/demo-seed.ts';
import { createKitchenTickets } from './tickets.ts';

const URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ordering_test';
let h: DatabaseHandle;
let m: DemoSeedResult;
let tdb: TenantDb;
let drinks: string;
let food: string;

beforeAll(async () => {
  h = createDatabase(URL, { max: 4 });
  await migrateCentral(h.db);
  m = await seedDemo(h.db, { slug: `kt-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: 'k'.repeat(20), pinPepper: 'p'.repeat(20) });
  tdb = bindTenant(h.db, m.merchant.tenant_database);
  const cats = await tdb.selectFrom('categories').select(['id', 'name']).execute();
  drinks = cats.find((c) => c.name === 'Drinks')!.id;
  food = cats.find((c) => c.name === 'Food')!.id;
});
afterAll(async () => {
  await dropMerchant(h.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
  await h.close();
});

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
