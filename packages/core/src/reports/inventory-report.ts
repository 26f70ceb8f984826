import { sql } from 'kysely';
import type { TenantDb } from '@pos/db';
import type { Access } from '../auth/access.ts';
import { MOVEMENT_TYPES, type MovementType } from '../catalog/inventories.ts';
import { resolveReportScope, utcEnvelope, type ReportQuery } from './report-window.ts';

/**
 * One stock (an item at a location) over the report's window. A stock is the sum of its history
 * (spec 1 "Content, inventories, tax rates"; every movement, kiosk and online sales included, writes
 * an entry), so: `opening` is the stock at the start of `from` (local time of the location), `closing`
 * the stock at the end of `to`, and `closing = opening + sum(movements)`, where `movements` holds the
 * signed change of each movement type within the window (a `count` counts as the difference it made).
 * `current` is the stock now.
 */
export interface InventoryRow {
  item_id: string;
  item_name: string;
  location_id: string;
  location_name: string;
  opening: number;
  movements: Record<MovementType, number>;
  closing: number;
  current: number;
}

/** `GET /back-office/reports/inventory` (VIEW_INVENTORY): every stock of the window's locations, by item name then location name. */
export interface InventoryReport {
  from: string;
  to: string;
  location_ids: string[];
  stocks: InventoryRow[];
}

export async function inventoryReport(scope: { tdb: TenantDb; access: Access }, input: ReportQuery): Promise<InventoryReport> {
  const w = await resolveReportScope(scope.tdb, scope.access, input);
  if (w.locationIds.length === 0) return { from: w.from, to: w.to, location_ids: [], stocks: [] };
  const env = utcEnvelope(w.from, w.to);
  const local = sql`(h.created_at at time zone loc.timezone)::date`;
  const rows = await scope.tdb
    .selectFrom('inventory_levels as lv')
    .innerJoin('items as i', 'i.id', 'lv.item_id')
    .innerJoin('locations as loc', 'loc.id', 'lv.location_id')
    // Entries after the window are never read: only those before `to`'s end (by the UTC envelope, then the local date).
    .leftJoin('inventory_history as h', (j) => j.onRef('h.item_id', '=', 'lv.item_id').onRef('h.location_id', '=', 'lv.location_id').on('h.created_at', '<', env.end))
    .where('lv.location_id', 'in', [...w.locationIds])
    .select([
      'lv.item_id',
      'i.name as item_name',
      'lv.location_id',
      'loc.name as location_name',
      'lv.quantity as current',
      sql<string>`coalesce(sum(h.quantity_change) filter (where ${local} < ${w.from}::date), 0)`.as('opening'),
      ...MOVEMENT_TYPES.map((type) => sql<string>`coalesce(sum(h.quantity_change) filter (where h.type = ${type} and ${local} between ${w.from}::date and ${w.to}::date), 0)`.as(type)),
    ])
    .groupBy(['lv.item_id', 'i.name', 'lv.location_id', 'loc.name', 'lv.quantity'])
    .orderBy('i.name')
    .orderBy('loc.name')
    .orderBy('lv.item_id')
    .orderBy('lv.location_id')
    .execute();
  const stocks = rows.map((r) => {
    const raw = r as unknown as Record<MovementType | 'opening', string>;
    const movements = Object.fromEntries(MOVEMENT_TYPES.map((t) => [t, Number(raw[t])])) as Record<MovementType, number>;
    const opening = Number(raw.opening);
    return {
      item_id: r.item_id,
      item_name: r.item_name,
      location_id: r.location_id,
      location_name: r.location_name,
      opening,
      movements,
      closing: opening + MOVEMENT_TYPES.reduce((s, t) => s + movements[t], 0),
      current: r.current,
    };
  });
  return { from: w.from, to: w.to, location_ids: [...w.locationIds], stocks };
}
