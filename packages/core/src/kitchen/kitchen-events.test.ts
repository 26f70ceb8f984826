import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { dbQueryCount } from '@pos/db';
import { seedDemoMerchant, type DemoMerchant } from '../seed/demo-merchant.test-support.ts';
import { appendKitchenEvents, PRUNE_EVERY } from './kitchen-events.ts';

let t: DemoMerchant;
const station = crypto.randomUUID();

beforeAll(async () => {
  t = await seedDemoMerchant('ke');
});
afterAll(() => t.close());

const event = (location_id: string, n: number) => ({ action: 'created', location_id, station_id: station, order: { id: crypto.randomUUID(), order_no: `A${n}` } });
const counter = async (location: string) => Number((await t.tdb.selectFrom('kitchen_event_cursors').select('last_seq').where('location_id', '=', location).executeTakeFirst())?.last_seq ?? 0);
const seqsAt = async (location: string) => (await t.tdb.selectFrom('kitchen_events').select('seq').where('location_id', '=', location).orderBy('seq').execute()).map((r) => Number(r.seq));

/** `count` events at `location` numbered after its counter, `age` old, and the counter moved past them (as earlier batches left them). */
async function storeOld(location: string, count: number, age: string): Promise<void> {
  const from = await counter(location);
  await sql`insert into ${sql.table(`${t.m.merchant.tenant_database}.kitchen_events`)} (location_id, seq, station_id, ticket_id, action, payload, created_at)
    select ${location}::uuid, g, ${station}::uuid, gen_random_uuid(), 'created', '{}'::jsonb, now() - ${age}::interval from generate_series(${from + 1}::int8, ${from + count}::int8) g`.execute(t.h.db);
  await t.tdb
    .insertInto('kitchen_event_cursors')
    .values({ location_id: location, last_seq: from + count })
    .onConflict((oc) => oc.column('location_id').doUpdateSet({ last_seq: from + count }))
    .execute();
}

describe('appendKitchenEvents', () => {
  test('numbers each location gap-free after its counter, in call order, and stores each event as returned, in one statement', async () => {
    const [a, b] = [t.m.locations[0]!.id, t.m.locations[1]!.id];
    await storeOld(a, 3, '1 minute');
    const before = { a: await counter(a), b: await counter(b) };
    const q0 = dbQueryCount();
    const out = await t.tdb.transaction().execute((tx) => appendKitchenEvents(tx, [event(a, 1), event(b, 2), event(a, 3), event(a, 4)]));
    // One statement for the counters and the events; BEGIN and COMMIT around it.
    expect(dbQueryCount() - q0).toBe(3);
    expect(out.map((e) => [e.location_id, e.seq])).toEqual([
      [a, before.a + 1],
      [b, before.b + 1],
      [a, before.a + 2],
      [a, before.a + 3],
    ]);
    expect(await counter(a)).toBe(before.a + 3);
    expect(await counter(b)).toBe(before.b + 1);
    const stored = await t.tdb.selectFrom('kitchen_events').select(['location_id', 'seq', 'station_id', 'ticket_id', 'action', 'payload']).where('ticket_id', 'in', out.map((e) => e.order.id)).orderBy('seq').orderBy('location_id').execute();
    expect(stored.length).toBe(4);
    for (const e of out) {
      const row = stored.find((r) => r.ticket_id === e.order.id)!;
      expect({ ...row, seq: Number(row.seq) }).toEqual({ location_id: e.location_id, seq: e.seq, station_id: station, ticket_id: e.order.id, action: 'created', payload: JSON.parse(JSON.stringify(e)) });
    }
  });

  test('a batch whose numbers cross a multiple of PRUNE_EVERY deletes expired events among the oldest 2 x PRUNE_EVERY only; recent ones stay', async () => {
    const loc = t.m.locations[1]!.id;
    const start = await counter(loc);
    // Recent events of the first test; the slice a pruning reads starts with them.
    const kept = await seqsAt(loc);
    const slice = 2 * PRUNE_EVERY;
    // 1,500 expired events, then recent ones up to just below the next multiple of PRUNE_EVERY.
    await storeOld(loc, 1500, '3 days');
    const next = Math.ceil((start + 1501) / PRUNE_EVERY) * PRUNE_EVERY;
    await storeOld(loc, next - 2 - (start + 1500), '1 hour');
    const recent = (await seqsAt(loc)).filter((s) => s > start + 1500);

    // Two events: the second takes the multiple, so this batch prunes among the 1,000 oldest.
    const first = await t.tdb.transaction().execute((tx) => appendKitchenEvents(tx, [event(loc, 1), event(loc, 2)]));
    expect(first.map((e) => e.seq)).toEqual([next - 1, next]);
    const left = range(start + slice - kept.length + 1, start + 1500);
    expect(await seqsAt(loc)).toEqual([...kept, ...left, ...recent, next - 1, next]);

    // A batch that does not cross a multiple deletes nothing.
    const [third] = await t.tdb.transaction().execute((tx) => appendKitchenEvents(tx, [event(loc, 3)]));
    expect(await seqsAt(loc)).toEqual([...kept, ...left, ...recent, next - 1, next, third!.seq]);

    // The next crossing takes the other expired ones (its slice reaches recent events, which stay).
    await storeOld(loc, PRUNE_EVERY - 2, '1 hour');
    const [fourth] = await t.tdb.transaction().execute((tx) => appendKitchenEvents(tx, [event(loc, 4)]));
    expect(fourth!.seq).toBe(next + PRUNE_EVERY);
    const after = await seqsAt(loc);
    expect(after.filter((s) => s > start && s <= start + 1500)).toEqual([]);
    expect(after.slice(0, kept.length + recent.length + 3)).toEqual([...kept, ...recent, next - 1, next, next + 1]);
    expect(after.length).toBe(kept.length + recent.length + 3 + PRUNE_EVERY - 1);
  });
});

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}
