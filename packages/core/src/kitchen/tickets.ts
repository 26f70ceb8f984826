import type { TenantDb, TenantTx } from '@pos/db';
import { stationsForCategory } from './stations.ts';
import { ticketViews } from './kds-orders.ts';
import { appendKitchenEvent, type KitchenEvent } from './kitchen-events.ts';
import { queueKitchenTicket } from '../printers/print-dispatch.ts';

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
  if (order.lines.length === 0) return [];
  const stations = await db.selectFrom('kitchen_stations').select(['id', 'category_ids', 'is_fallback']).where('location_id', '=', order.locationId).orderBy('id').execute();
  const byStation = new Map<string, KitchenOrderInput['lines'][number][]>();
  for (const line of order.lines) {
    for (const stationId of stationsForCategory(stations, line.category_id)) {
      const list = byStation.get(stationId) ?? [];
      list.push(line);
      byStation.set(stationId, list);
    }
  }
  const created: CreatedTicket[] = [];
  for (const [stationId, lines] of byStation) {
    const id = Bun.randomUUIDv7();
    const row = await db
      .insertInto('kitchen_tickets')
      .values({ id, location_id: order.locationId, station_id: stationId, source: order.source, source_id: order.sourceId, fire_no: order.fireNo ?? 1, order_no: order.orderNo, queued_at: order.at, updated_at: order.at })
      .onConflict((oc) => oc.constraint('kitchen_tickets_once').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!row) continue;
    await db
      .insertInto('kitchen_ticket_lines')
      .values(lines.map((l) => ({ ticket_id: id, position: l.position, item_id: l.item_id, line_ref: l.line_ref ?? null, category_id: l.category_id, name: l.name, qty: l.qty, modifiers: JSON.stringify(l.modifiers ?? []) })))
      .execute();
    // The station's kitchen printers get the ticket in the same commit (issue 15).
    await queueKitchenTicket(db, { id, station_id: stationId, location_id: order.locationId, order_no: order.orderNo, at: order.at, lines });
    const ticket = await db.selectFrom('kitchen_tickets').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const [view] = await ticketViews(db, [ticket]);
    const event = await appendKitchenEvent(db, { action: 'created', location_id: order.locationId, station_id: stationId, order: view! as unknown as KitchenEvent['order'] });
    created.push({ id, station_id: stationId, location_id: order.locationId, order_no: order.orderNo, lines: lines.length, event });
  }
  return created;
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
