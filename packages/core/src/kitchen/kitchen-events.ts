import type Redis from 'ioredis';
import { sql } from 'kysely';
import type { TenantDb, TenantTx } from '@pos/db';
import type { Logger } from '@pos/kernel';
import { crossesMultiple, eventCountsByLocation, numberEvents } from '@pos/domain/kitchen/kitchen-event-seq';
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
const PRUNE_EVERY = 500;
/** At most this many events are replayed; beyond, the screen is told to reload (`kitchen.resync`). */
export const MAX_REPLAY = 1000;

/** Numbers and stores one kitchen event; call inside the transaction that makes the change. */
export async function appendKitchenEvent(db: TenantDb | TenantTx, e: Omit<KitchenEvent, 'type' | 'seq'>): Promise<KitchenEvent> {
  return (await appendKitchenEvents(db, [e]))[0]!;
}

/**
 * Numbers and stores kitchen events, in the order given; call inside the transaction that makes the
 * changes. Each location's counter moves once, by its number of events (one statement for all the
 * locations), and all the events are stored by one insert, whatever their number.
 */
export async function appendKitchenEvents(db: TenantDb | TenantTx, events: readonly Omit<KitchenEvent, 'type' | 'seq'>[]): Promise<KitchenEvent[]> {
  if (!events.length) return [];
  const counts = eventCountsByLocation(events.map((e) => e.location_id));
  // Counter rows are locked in location id order: two batches over the same locations cannot deadlock.
  const locations = [...counts.keys()].sort();
  const cursors = await db
    .insertInto('kitchen_event_cursors')
    .values(locations.map((location_id) => ({ location_id, last_seq: counts.get(location_id)! })))
    .onConflict((oc) => oc.column('location_id').doUpdateSet({ last_seq: sql`kitchen_event_cursors.last_seq + excluded.last_seq` }))
    .returning(['location_id', 'last_seq'])
    .execute();
  const last = new Map(cursors.map((c) => [c.location_id, Number(c.last_seq)]));
  const seqs = numberEvents(events.map((e) => e.location_id), last);
  const numbered: KitchenEvent[] = events.map((e, i) => ({ type: 'kitchen.ticket', seq: seqs[i]!, ...e }));
  // One JSON document for all the events: a fixed statement whatever their number, and their payloads
  // (JSON themselves) are not escaped quote by quote as the elements of an array parameter would be.
  const rows = numbered.map((e) => ({ location_id: e.location_id, seq: e.seq, station_id: e.station_id, ticket_id: e.order.id, action: e.action, payload: e }));
  await db
    .insertInto('kitchen_events')
    .columns(['location_id', 'seq', 'station_id', 'ticket_id', 'action', 'payload'])
    .expression(sql`select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(location_id uuid, seq int8, station_id uuid, ticket_id uuid, action text, payload jsonb)`)
    .execute();
  const prune = locations.filter((l) => crossesMultiple(last.get(l)!, counts.get(l)!, PRUNE_EVERY));
  if (prune.length) {
    await db.deleteFrom('kitchen_events').where('location_id', 'in', prune).where('created_at', '<', sql<Date>`now() - ${RETENTION}::interval`).execute();
  }
  return numbered;
}

/**
 * Publishes committed events on the kitchen channel; a failure is logged (screens catch up on
 * reconnect). Sent as one pipeline: one socket write for a whole batch, in call order, so screens see seq order.
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
