import type { TenantDb, TenantTx } from '@pos/db';
import { stationsForCategory } from './stations.ts';

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
  readonly at: Date;
  readonly lines: readonly { position: number; item_id: string; category_id: string | null; name: string; qty: number; modifiers: unknown }[];
}

export interface CreatedTicket {
  readonly id: string;
  readonly station_id: string;
  readonly location_id: string;
  readonly order_no: string;
  readonly lines: number;
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
      .values({ id, location_id: order.locationId, station_id: stationId, source: order.source, source_id: order.sourceId, order_no: order.orderNo, queued_at: order.at, updated_at: order.at })
      .onConflict((oc) => oc.constraint('kitchen_tickets_once').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!row) continue;
    await db
      .insertInto('kitchen_ticket_lines')
      .values(lines.map((l) => ({ ticket_id: id, position: l.position, item_id: l.item_id, category_id: l.category_id, name: l.name, qty: l.qty, modifiers: JSON.stringify(l.modifiers ?? []) })))
      .execute();
    created.push({ id, station_id: stationId, location_id: order.locationId, order_no: order.orderNo, lines: lines.length });
  }
  return created;
}
