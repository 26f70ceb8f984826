import type Redis from 'ioredis';
import { sql } from 'kysely';
import type { TenantDb, TenantTx } from '@pos/db';
import type { Logger } from '@pos/kernel';
import { crossesMultiple, eventCountsByLocation, numberEvents, placesInLocation } from '@pos/domain/kitchen/kitchen-event-seq';
import { kitchenChannel, publishAll } from '../payments/payment-events.ts';

/**
 * Kitchen events: what a kitchen screen shows changing (a new ticket, an order action, an item or
 * modifier mark, a customer signal). Each is numbered per location (`seq`, 1, 2, 3, ... without gaps)
 * in the transaction that makes the change: the location's counter row is locked until the commit,
 * so numbers become visible in order. After the commit the event is published on the tenant's kitchen
 * channel; a screen that reconnects passes the last `seq` it saw and is sent the ones after it.
 */
export interface KitchenEvent {
  readonly type: 'kitchen.ticket';
  readonly seq: number;
  readonly action: string;
  readonly location_id: string;
  readonly station_id: string;
  readonly order: { readonly id: string } & Record<string, unknown>;
}

/** Events kept for catch-up; older ones are pruned (a screen offline longer reloads its orders). */
const RETENTION = '2 days';
/** How often (in events per location) the pruning runs: when a batch's numbers cross a multiple of it. */
export const PRUNE_EVERY = 500;
/** How many of a location's oldest events a pruning looks at. */
const PRUNE_SCAN = 2 * PRUNE_EVERY;
/** At most this many events are replayed; beyond, the screen is told to reload (`kitchen.resync`). */
export const MAX_REPLAY = 1000;

/** Numbers and stores one kitchen event; call inside the transaction that makes the change. */
export async function appendKitchenEvent(db: TenantDb | TenantTx, e: Omit<KitchenEvent, 'type' | 'seq'>): Promise<KitchenEvent> {
  return (await appendKitchenEvents(db, [e]))[0]!;
}

/**
 * Numbers and stores kitchen events, in the order given; call inside the transaction that makes the
 * changes. One statement moves each location's counter once, by its number of events, and stores all
 * the events, whatever their number: the counter rows stay locked until the commit, so nothing runs
 * between taking them and storing the events (a round trip there kept other batches waiting).
 */
export async function appendKitchenEvents(db: TenantDb | TenantTx, events: readonly Omit<KitchenEvent, 'type' | 'seq'>[]): Promise<KitchenEvent[]> {
  if (!events.length) return [];
  const locationIds = events.map((e) => e.location_id);
  const counts = eventCountsByLocation(locationIds);
  // Counter rows are locked in location id order: two batches over the same locations cannot deadlock.
  const locations = [...counts.keys()].sort();
  // Each event's place among its location's (k of n): its number is the moved counter - n + k. One JSON
  // document for all: a fixed statement, and the payloads (JSON themselves) are not escaped quote by quote.
  const places = placesInLocation(locationIds);
  const rows = events.map((e, i) => ({ location_id: e.location_id, n: counts.get(e.location_id)!, k: places[i]!, station_id: e.station_id, ticket_id: e.order.id, action: e.action, payload: { type: 'kitchen.ticket', ...e } }));
  const cursors = await db
    .with('cur', (qb) =>
      qb
        .insertInto('kitchen_event_cursors')
        .values(locations.map((location_id) => ({ location_id, last_seq: counts.get(location_id)! })))
        .onConflict((oc) => oc.column('location_id').doUpdateSet({ last_seq: sql`kitchen_event_cursors.last_seq + excluded.last_seq` }))
        .returning(['location_id', 'last_seq']),
    )
    .with('ev', (qb) =>
      qb
        .insertInto('kitchen_events')
        .columns(['location_id', 'seq', 'station_id', 'ticket_id', 'action', 'payload'])
        .expression(
          sql`select x.location_id, cur.last_seq - x.n + x.k, x.station_id, x.ticket_id, x.action, x.payload || jsonb_build_object('seq', cur.last_seq - x.n + x.k)
            from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(location_id uuid, n int8, k int8, station_id uuid, ticket_id uuid, action text, payload jsonb)
            join cur on cur.location_id = x.location_id`,
        ),
    )
    .selectFrom('cur')
    .select(['location_id', 'last_seq'])
    .execute();
  const last = new Map(cursors.map((c) => [c.location_id, Number(c.last_seq)]));
  const seqs = numberEvents(locationIds, last);
  const numbered: KitchenEvent[] = events.map((e, i) => ({ type: 'kitchen.ticket', seq: seqs[i]!, ...e }));
  await pruneKitchenEventsIfDue(db, numbered);
  return numbered;
}

/**
 * After events were numbered (one batch, each location's numbers consecutive): prunes the locations
 * whose numbers crossed a multiple of PRUNE_EVERY.
 */
export async function pruneKitchenEventsIfDue(db: TenantDb | TenantTx, numbered: readonly Pick<KitchenEvent, 'location_id' | 'seq'>[]): Promise<void> {
  const batch = new Map<string, { last: number; n: number }>();
  for (const e of numbered) {
    const b = batch.get(e.location_id);
    if (b) {
      b.last = Math.max(b.last, e.seq);
      b.n++;
    } else batch.set(e.location_id, { last: e.seq, n: 1 });
  }
  const prune = [...batch].filter(([, b]) => crossesMultiple(b.last, b.n, PRUNE_EVERY)).map(([l]) => l).sort();
  if (prune.length) await pruneKitchenEvents(db, prune);
}

/**
 * Deletes the events of these locations older than RETENTION among their PRUNE_SCAN oldest: numbers
 * follow time, so a pruning reads a bounded slice of the location's events instead of all it keeps
 * (it runs while the counter rows are locked). PRUNE_SCAN is twice PRUNE_EVERY, so it keeps up.
 */
async function pruneKitchenEvents(db: TenantDb | TenantTx, locationIds: readonly string[]): Promise<void> {
  for (const location of locationIds) {
    const oldest = db.selectFrom('kitchen_events').select(['seq', 'created_at']).where('location_id', '=', location).orderBy('seq').limit(PRUNE_SCAN);
    const expired = db
      .selectFrom(oldest.as('o'))
      .select('o.seq')
      .where('o.created_at', '<', sql<Date>`now() - ${RETENTION}::interval`);
    await db
      .deleteFrom('kitchen_events')
      .where('location_id', '=', location)
      .where('seq', '=', sql<string>`any(array(${expired}))`)
      .execute();
  }
}

/**
 * Publishes committed events on the kitchen channel; a failure is logged (screens catch up on
 * reconnect). Sent as one message for a whole batch (`publishAll`), in call order, so screens see seq order.
 */
export async function publishKitchenEvents(redis: Redis, tenantDatabase: string, events: readonly KitchenEvent[], log: Logger): Promise<void> {
  await publishAll(
    redis,
    kitchenChannel(tenantDatabase),
    events.map((e) => ({ message: JSON.stringify(e), fields: { seq: e.seq, location_id: e.location_id } })),
    'kitchen event push failed',
    log,
  );
}

/** A publisher bound to one tenant, for use cases that write kitchen events (null without Redis). */
export type KitchenPublisher = (events: readonly KitchenEvent[]) => Promise<void>;
export function kitchenPublisher(redis: Redis | undefined, tenantDatabase: string, log: Logger): KitchenPublisher {
  return async (events) => {
    if (redis && events.length) await publishKitchenEvents(redis, tenantDatabase, events, log);
  };
}

/** The location's last event number (0 before the first). */
export async function latestKitchenSeq(db: TenantDb, locationId: string): Promise<number> {
  const r = await db.selectFrom('kitchen_event_cursors').select('last_seq').where('location_id', '=', locationId).executeTakeFirst();
  return r ? Number(r.last_seq) : 0;
}

/**
 * The events after `after` at a location, oldest first. `complete` is false when the cursor is older
 * than what is kept or more than MAX_REPLAY events were missed: the screen must reload its orders.
 */
export async function kitchenEventsAfter(db: TenantDb, locationId: string, after: number): Promise<{ events: KitchenEvent[]; complete: boolean; latest: number }> {
  const latest = await latestKitchenSeq(db, locationId);
  if (after >= latest) return { events: [], complete: after <= latest, latest };
  if (latest - after > MAX_REPLAY) return { events: [], complete: false, latest };
  const rows = await db.selectFrom('kitchen_events').select(['seq', 'payload']).where('location_id', '=', locationId).where('seq', '>', String(after)).where('seq', '<=', String(latest)).orderBy('seq').execute();
  // Gap-free numbering: fewer rows than numbers means some were pruned.
  const complete = rows.length === latest - after;
  return { events: complete ? rows.map((r) => r.payload as unknown as KitchenEvent) : [], complete, latest };
}
