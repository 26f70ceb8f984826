import type { TenantDb, TenantTx } from '@pos/db';
import { routeKitchenTickets, type RoutedTicket } from './ticket-routing.ts';
import { ticketViewsOf, type TicketLineRow, type TicketRow } from './kds-orders.ts';
import { pruneKitchenEventsIfDue, type KitchenEvent } from './kitchen-events.ts';
import { createTicketsStatement, locationStationsStatement } from './ticket-statements.ts';
import { dishKey, kitchenFireDelta, type FireDeltaLine, type SentLine } from '@pos/domain/kitchen/fire-delta';
import { kitchenPrinters, queueKitchenTickets } from '../printers/print-dispatch.ts';

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
  /** When a scheduled order is due (an online order's `scheduled_for`); none for an order for now. */
  readonly dueAt?: Date | null;
  readonly lines: readonly {
    position: number;
    item_id: string;
    category_id: string | null;
    name: string;
    qty: number;
    modifiers: unknown;
    line_ref?: string | null;
    /** The stations this line goes to, instead of routing it by its category (a register fire's `VOID` line). */
    station_ids?: readonly string[];
  }[];
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

export interface KitchenTicketOptions {
  /**
   * Write a transaction's tickets only while the transaction exists, holding its row until the commit
   * (the post-capture listener: a test-mode transaction may be deleted meanwhile, and its tickets have no
   * foreign key to go with it). A ticket for a transaction that is gone is not written, like a re-run's.
   */
  readonly liveTransactionsOnly?: boolean;
}

/**
 * `createKitchenTickets` for many orders at once, with the same result as calling it for each in
 * turn (tickets and events: orders in the order given, within an order its stations as routed). Reads
 * the stations and their kitchen printers, then writes the tickets, their lines, the location counters
 * and the `created` events in one statement (`createTicketsStatement`), so the counter rows are locked
 * only while it runs. Tickets of stations with a kitchen printer get their print jobs in the same commit
 * (issue 15): then the statement and the print jobs share a transaction. Now and then old events are
 * pruned afterwards.
 */
export async function createKitchenTicketsMany(db: TenantDb | TenantTx, orders: readonly KitchenOrderInput[], opts: KitchenTicketOptions = {}): Promise<CreatedTicket[]> {
  const withLines = orders.filter((o) => o.lines.length);
  if (!withLines.length) return [];
  const stations = await locationStationsStatement.execute(db, [[...new Set(withLines.map((o) => o.locationId))]]);
  const planned = routeKitchenTickets(withLines, stations).map((t) => {
    const id = Bun.randomUUIDv7();
    const row = newTicketRow(id, t);
    const lines = t.lines.map((l) => newTicketLine(id, l));
    const [view] = ticketViewsOf([row], lines);
    const event = { action: 'created', location_id: t.order.locationId, station_id: t.stationId, order: view! as unknown as KitchenEvent['order'] };
    return { ...t, id, row, lines, event };
  });
  if (!planned.length) return [];
  const printers = await kitchenPrinters(db, [...new Set(planned.map((t) => t.stationId))]);

  const write = async (q: TenantDb | TenantTx): Promise<CreatedTicket[]> => {
    const doc = planned.map((t, ord) => {
      const { row } = t;
      return {
        ord,
        id: t.id,
        location_id: row.location_id,
        station_id: row.station_id,
        source: row.source,
        source_id: row.source_id,
        fire_no: row.fire_no,
        order_no: row.order_no,
        status: row.status,
        held: row.held,
        prioritized: row.prioritized,
        at: row.queued_at,
        due_at: row.due_at,
        lines: t.lines.map((l) => ({ position: l.position, item_id: l.item_id, line_ref: l.line_ref, category_id: l.category_id, name: l.name, qty: l.qty, modifiers: l.modifiers })),
        payload: { type: 'kitchen.ticket', ...t.event },
      };
    });
    // A ticket already written for its order, fire and station (a re-run), or one of a transaction that is gone, is not returned: nothing more is done for it.
    const seqOf = new Map((await createTicketsStatement.execute(q, [JSON.stringify(doc), opts.liveTransactionsOnly === true])).map((r) => [r.id, Number(r.seq)]));
    const fresh = planned.filter((t) => seqOf.has(t.id));
    await queueKitchenTickets(
      q,
      fresh.map((t) => ({ id: t.id, station_id: t.stationId, location_id: t.order.locationId, order_no: t.order.orderNo, at: t.order.at, due_at: t.row.due_at, lines: t.lines })),
      printers,
    );
    return fresh.map((t) => ({ id: t.id, station_id: t.stationId, location_id: t.order.locationId, order_no: t.order.orderNo, lines: t.lines.length, event: { type: 'kitchen.ticket', seq: seqOf.get(t.id)!, ...t.event } }));
  };
  const printed = new Set(printers.map((p) => p.station_id));
  const printing = planned.some((t) => printed.has(t.stationId));
  const created = printing && !db.isTransaction ? await db.transaction().execute(write) : await write(db);
  await pruneKitchenEventsIfDue(db, created.map((c) => c.event));
  return created;
}

/** A new ticket as stored (its event shows the stored row, so both are built from this one). */
function newTicketRow(id: string, t: RoutedTicket): TicketRow {
  const at = t.order.at;
  return {
    id,
    location_id: t.order.locationId,
    station_id: t.stationId,
    source: t.order.source,
    source_id: t.order.sourceId,
    fire_no: t.order.fireNo ?? 1,
    order_no: t.order.orderNo,
    status: 'Queued',
    held: false,
    prioritized: false,
    queued_at: at,
    started_at: null,
    ready_at: null,
    completed_at: null,
    recalled_at: null,
    updated_at: at,
    customer_arrived_at: null,
    estimated_arrival_at: null,
    due_at: t.order.dueAt ?? null,
  };
}

/** A new ticket line as stored. */
function newTicketLine(ticketId: string, l: KitchenOrderInput['lines'][number]): TicketLineRow {
  return { ticket_id: ticketId, position: l.position, item_id: l.item_id, line_ref: l.line_ref ?? null, category_id: l.category_id, name: l.name, qty: l.qty, modifiers: (l.modifiers ?? []) as TicketLineRow['modifiers'], status: 'Queued', modifier_statuses: [] as unknown as TicketLineRow['modifier_statuses'] };
}

/**
 * A register order was fired (`POST /pos/orders/{clientUuid}/fire`): what changed since the earlier
 * fires goes to the kitchen as fire number `version` (the order's version after the fire), by
 * `kitchenFireDelta`: new lines and raised quantities as the extra, lowered or removed fired lines as
 * `VOID` lines with a negative quantity. New quantities are routed by the item's category in the catalog
 * now; a `VOID` line goes to the stations the earlier fires sent the dish to, under the category it was
 * sent with (the item may have been deleted or moved, or its category deleted, since). The ticket shows
 * the table number, else the last four characters of the order's id. Runs in the fire's transaction
 * (the order row is locked, so two fires of one order take turns). Returns the tickets created and the
 * delta they were made from (the fire's fiscal order event signs it).
 */
export interface KitchenFire {
  readonly tickets: CreatedTicket[];
  readonly delta: FireDeltaLine[];
}

export async function fireToKitchen(
  tx: TenantTx,
  order: { id: string; location_id: string; version: number; table_number: string | null; lines: readonly { uuid: string; item_id: string; name: string; qty: number; modifiers?: unknown }[] },
  at: Date,
): Promise<KitchenFire> {
  const rows = await tx
    .selectFrom('kitchen_ticket_lines as l')
    .innerJoin('kitchen_tickets as t', 't.id', 'l.ticket_id')
    .select(['l.line_ref', 't.fire_no', 'l.qty', 'l.item_id', 'l.name', 'l.modifiers', 't.station_id', 'l.category_id'])
    .where('t.source', '=', 'pos_order')
    .where('t.source_id', '=', order.id)
    .orderBy('t.fire_no')
    .orderBy('t.id')
    .execute();
  const fresh = kitchenFireDelta(order.lines, sentLines(rows));
  if (!fresh.length) return { tickets: [], delta: [] };
  const itemIds = [...new Set(fresh.map((l) => l.item_id))];
  const items = await tx.selectFrom('items').select(['id', 'category_id']).where('id', 'in', itemIds).execute();
  const categoryOf = new Map(items.map((i) => [i.id, i.category_id]));
  const sent = sentTo(rows);
  const tickets = await createKitchenTickets(tx, {
    source: 'pos_order',
    sourceId: order.id,
    locationId: order.location_id,
    orderNo: order.table_number ?? order.id.slice(-4).toUpperCase(),
    fireNo: order.version,
    at,
    lines: fresh.map((l) => fireLine(l, categoryOf.get(l.item_id) ?? null, sent.get(dishKey(l.uuid, l.item_id, l.modifiers)))),
  });
  return { tickets, delta: fresh };
}

/** Where earlier fires of a register order sent a dish, as its ticket lines recorded it. */
interface SentTo {
  /** The stations whose tickets still hold some of the dish, in the order they first got it. */
  readonly stationIds: string[];
  /** The category of the dish's latest fire that sent some. */
  readonly categoryId: string | null;
}

/** `SentTo` per dish (`dishKey`: line uuid, item, modifiers) of the order's ticket lines, in fire order. */
function sentTo(rows: readonly { line_ref: string | null; qty: number; item_id: string; modifiers: unknown; station_id: string; category_id: string | null }[]): Map<string, SentTo> {
  const netOf = new Map<string, Map<string, number>>();
  const categoryOf = new Map<string, string | null>();
  for (const r of rows) {
    if (r.line_ref === null) continue;
    const key = dishKey(r.line_ref, r.item_id, r.modifiers);
    const net = netOf.get(key) ?? new Map<string, number>();
    net.set(r.station_id, (net.get(r.station_id) ?? 0) + r.qty);
    netOf.set(key, net);
    if (r.qty > 0) categoryOf.set(key, r.category_id);
  }
  return new Map([...netOf].map(([key, net]) => [key, { stationIds: [...net].filter(([, qty]) => qty > 0).map(([id]) => id), categoryId: categoryOf.get(key) ?? null }]));
}

/**
 * A fire's line as the kitchen gets it. A `VOID` line goes to the stations holding the dish (the catalog
 * may no longer route its item there), each with the whole negative quantity: a fire sends a line with one
 * quantity to every station it goes to (`sentLines` counts each fire once). Anything else, or a `VOID` of
 * a dish no station holds, is routed by `catalogCategory`.
 */
function fireLine(l: FireDeltaLine, catalogCategory: string | null, sent: SentTo | undefined): KitchenOrderInput['lines'][number] {
  const line = { position: l.position, item_id: l.item_id, name: l.name, qty: l.qty, modifiers: l.modifiers, line_ref: l.uuid };
  if (l.qty < 0 && sent?.stationIds.length) return { ...line, category_id: sent.categoryId, station_ids: sent.stationIds };
  return { ...line, category_id: catalogCategory };
}

/**
 * The quantity earlier fires sent per dish of a register line (uuid, item, modifiers: a line whose item
 * changed is another dish): one fire sends a line to each station that takes it with the same
 * quantity, so each fire counts once. The name is that of the dish's first fire (never a `VOID` line's).
 */
function sentLines(rows: readonly { line_ref: string | null; fire_no: number; qty: number; item_id: string; name: string; modifiers: unknown }[]): SentLine[] {
  const byDish = new Map<string, { line: SentLine; fires: Set<number> }>();
  for (const r of rows) {
    if (r.line_ref === null) continue;
    const key = `${r.line_ref}|${r.item_id}|${JSON.stringify(r.modifiers ?? [])}`;
    const seen = byDish.get(key);
    if (!seen) byDish.set(key, { line: { line_ref: r.line_ref, item_id: r.item_id, name: r.name, qty: r.qty, modifiers: r.modifiers }, fires: new Set([r.fire_no]) });
    else if (!seen.fires.has(r.fire_no)) {
      seen.fires.add(r.fire_no);
      seen.line = { ...seen.line, qty: seen.line.qty + r.qty };
    }
  }
  return [...byDish.values()].map((v) => v.line);
}
