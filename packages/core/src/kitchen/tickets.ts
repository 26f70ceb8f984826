import { sql } from 'kysely';
import type { TenantDb, TenantTx } from '@pos/db';
import { routeKitchenTickets } from './ticket-routing.ts';
import { ticketViewsOf } from './kds-orders.ts';
import { appendKitchenEvents, type KitchenEvent } from './kitchen-events.ts';
import { queueKitchenTickets } from '../printers/print-dispatch.ts';

/**
 * Kitchen tickets: an order reaches the kitchen as one ticket per station its lines are routed to
 * (every station serving a line's category, else the location's fallback station; a line no station
 * takes is not shown on any display). Writing is idempotent per order and station, so a re-run of the
 * capture listener or a second fire writes nothing new. Returns the tickets created by this call.
 */
export interface KitchenOrderInput {
  readonly source: 'transaction' | 'pos_order';
  readonly sourceId: string;
  readonly locationId: string;
  readonly orderNo: string;
  /** Which fire of a register order; 1 for a transaction. */
  readonly fireNo?: number;
  readonly at: Date;
  readonly lines: readonly { position: number; item_id: string; category_id: string | null; name: string; qty: number; modifiers: unknown; line_ref?: string | null }[];
}

export interface CreatedTicket {
  readonly id: string;
  readonly station_id: string;
  readonly location_id: string;
  readonly order_no: string;
  readonly lines: number;
  /** The `created` kitchen event, numbered in this transaction; publish it after the commit. */
  readonly event: KitchenEvent;
}

export async function createKitchenTickets(db: TenantDb | TenantTx, order: KitchenOrderInput): Promise<CreatedTicket[]> {
  return createKitchenTicketsMany(db, [order]);
}

/**
 * `createKitchenTickets` for many orders at once, with the same result as calling it for each in
 * turn (tickets and events: orders in the order given, within an order its stations as routed), in
 * a number of statements that does not grow with the orders: stations, tickets, lines, the kitchen
 * printers of their stations, event counters, events, one each (and now and then the pruning of
 * old events). Only tickets whose station has a kitchen printer cost more (their print jobs).
 */
export async function createKitchenTicketsMany(db: TenantDb | TenantTx, orders: readonly KitchenOrderInput[]): Promise<CreatedTicket[]> {
  const withLines = orders.filter((o) => o.lines.length);
  if (!withLines.length) return [];
  const stations = await db
    .selectFrom('kitchen_stations')
    .select(['id', 'location_id', 'category_ids', 'is_fallback'])
    .where('location_id', 'in', [...new Set(withLines.map((o) => o.locationId))])
    .orderBy('id')
    .execute();
  const planned = routeKitchenTickets(withLines, stations).map((t) => ({ ...t, id: Bun.randomUUIDv7() }));
  if (!planned.length) return [];
  // A ticket already written for its order, fire and station (a re-run) is not returned: nothing more is done for it.
  // One array per column: a fixed statement whatever the number of tickets, no query nodes per row.
  const col = <T>(f: (t: (typeof planned)[number]) => T) => planned.map(f);
  const inserted = await db
    .insertInto('kitchen_tickets')
    .columns(['id', 'location_id', 'station_id', 'source', 'source_id', 'fire_no', 'order_no', 'queued_at', 'updated_at'])
    .expression(
      sql`select id, l, st, src, sid, f, o, q, q from unnest(${col((t) => t.id)}::uuid[], ${col((t) => t.order.locationId)}::uuid[], ${col((t) => t.stationId)}::uuid[], ${col((t) => t.order.source)}::text[], ${col((t) => t.order.sourceId)}::uuid[], ${col((t) => t.order.fireNo ?? 1)}::int[], ${col((t) => t.order.orderNo)}::text[], ${col((t) => t.order.at)}::timestamptz[]) as x(id, l, st, src, sid, f, o, q)`,
    )
    .onConflict((oc) => oc.constraint('kitchen_tickets_once').doNothing())
    .returningAll()
    .execute();
  const rowOf = new Map(inserted.map((r) => [r.id, r]));
  const fresh = planned.flatMap((t) => {
    const row = rowOf.get(t.id);
    return row ? [{ ...t, row }] : [];
  });
  if (!fresh.length) return [];
  const lines = await insertTicketLines(db, fresh.flatMap((t) => t.lines.map((l) => ({ ticket_id: t.id, ...l }))));
  // The stations' kitchen printers get the tickets in the same commit (issue 15).
  await queueKitchenTickets(db, fresh.map((t) => ({ id: t.id, station_id: t.stationId, location_id: t.order.locationId, order_no: t.order.orderNo, at: t.order.at, lines: t.lines })));
  // Each ticket's items in position order, as `ticketViews` reads them.
  const views = ticketViewsOf(fresh.map((t) => t.row), [...lines].sort((a, b) => a.position - b.position));
  const events = await appendKitchenEvents(db, fresh.map((t, i) => ({ action: 'created', location_id: t.order.locationId, station_id: t.stationId, order: views[i]! as unknown as KitchenEvent['order'] })));
  return fresh.map((t, i) => ({ id: t.id, station_id: t.stationId, location_id: t.order.locationId, order_no: t.order.orderNo, lines: t.lines.length, event: events[i]! }));
}

/**
 * All the lines of the new tickets in one statement, as stored. Sent as one JSON document: a multi-row
 * VALUES would take eight parameters a line (a large batch could pass the protocol's limit of 65535),
 * and an array per column would have every quote of the modifiers (JSON themselves) escaped one by one.
 */
async function insertTicketLines(db: TenantDb | TenantTx, lines: readonly (KitchenOrderInput['lines'][number] & { ticket_id: string })[]) {
  const rows = lines.map((l) => ({ ticket_id: l.ticket_id, position: l.position, item_id: l.item_id, line_ref: l.line_ref ?? null, category_id: l.category_id, name: l.name, qty: l.qty, modifiers: l.modifiers ?? [] }));
  return db
    .insertInto('kitchen_ticket_lines')
    .columns(['ticket_id', 'position', 'item_id', 'line_ref', 'category_id', 'name', 'qty', 'modifiers'])
    .expression(
      sql`select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as x(ticket_id uuid, position int, item_id uuid, line_ref text, category_id uuid, name text, qty int, modifiers jsonb)`,
    )
    .returningAll()
    .execute();
}

/**
 * A register order was fired (`POST /pos/orders/{clientUuid}/fire`): the lines not sent by an earlier
 * fire go to the kitchen as fire number `version` (the order's version after the fire). Categories
 * come from the catalog by item id. The ticket shows the table number, else the last four characters
 * of the order's id. Runs in the fire's transaction.
 */
export async function fireToKitchen(
  tx: TenantTx,
  order: { id: string; location_id: string; version: number; table_number: string | null; lines: readonly { uuid: string; item_id: string; name: string; qty: number; modifiers?: unknown }[] },
  at: Date,
): Promise<CreatedTicket[]> {
  const sent = await tx
    .selectFrom('kitchen_ticket_lines as l')
    .innerJoin('kitchen_tickets as t', 't.id', 'l.ticket_id')
    .select('l.line_ref')
    .where('t.source', '=', 'pos_order')
    .where('t.source_id', '=', order.id)
    .execute();
  const already = new Set(sent.map((r) => r.line_ref));
  const fresh = order.lines.map((l, position) => ({ l, position })).filter(({ l }) => !already.has(l.uuid));
  if (!fresh.length) return [];
  const itemIds = [...new Set(fresh.map(({ l }) => l.item_id))];
  const items = await tx.selectFrom('items').select(['id', 'category_id']).where('id', 'in', itemIds).execute();
  const categoryOf = new Map(items.map((i) => [i.id, i.category_id]));
  return createKitchenTickets(tx, {
    source: 'pos_order',
    sourceId: order.id,
    locationId: order.location_id,
    orderNo: order.table_number ?? order.id.slice(-4).toUpperCase(),
    fireNo: order.version,
    at,
    lines: fresh.map(({ l, position }) => ({ position, item_id: l.item_id, category_id: categoryOf.get(l.item_id) ?? null, name: l.name, qty: l.qty, modifiers: l.modifiers ?? [], line_ref: l.uuid })),
  });
}
