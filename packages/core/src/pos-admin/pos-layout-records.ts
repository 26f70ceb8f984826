import { sql, type Selectable } from 'kysely';
import type { TenantDb, TenantTables, TenantTx } from '@pos/db';
import { isUuid } from '@pos/domain/ids';
import { iso, notFound } from './pos-admin-scope.ts';

/**
 * Register screen layouts (`pos_layouts`, `pos_layout_tiles`): how they are read and shown. A tile is
 * an item or a category of the catalog (`item_id` or `category_id`, the other null); its `label` and
 * `color` are optional (the register shows the item's or category's name without a label).
 */
export type PosLayoutRow = Selectable<TenantTables['pos_layouts']>;
export type PosLayoutTileRow = Selectable<TenantTables['pos_layout_tiles']>;

export interface PosLayoutTileView {
  row: number;
  column: number;
  width: number;
  height: number;
  item_id: string | null;
  category_id: string | null;
  label: string | null;
  color: string | null;
}

export interface PosLayoutView {
  id: string;
  location_id: string;
  name: string;
  is_default: boolean;
  columns: number;
  rows: number;
  pages: { name: string; tiles: PosLayoutTileView[] }[];
  created_at: string;
  updated_at: string;
}

/** A layout of the location, or 404: another location's or merchant's id is not found. `lock` holds it until the transaction ends. */
export async function findLayout(db: TenantDb | TenantTx, locationId: string, id: string, opts: { lock?: boolean } = {}): Promise<PosLayoutRow> {
  if (!isUuid(id)) throw notFound('layout');
  let q = db.selectFrom('pos_layouts').selectAll().where('id', '=', id).where('location_id', '=', locationId);
  if (opts.lock) q = q.forUpdate();
  const row = await q.executeTakeFirst();
  if (!row) throw notFound('layout');
  return row;
}

/**
 * The layouts of a location, the default first, then by name: the back office's list and the register's
 * (`GET /pos/layouts`, which shows the first and may offer the others).
 */
export async function locationLayouts(db: TenantDb | TenantTx, locationId: string): Promise<PosLayoutView[]> {
  const rows = await db.selectFrom('pos_layouts').selectAll().where('location_id', '=', locationId).orderBy('is_default', 'desc').orderBy(sql`lower(name)`).orderBy('id').execute();
  return presentLayouts(db, rows);
}

/** The layouts with their tiles, in the order given (one read of the tiles for all of them). */
export async function presentLayouts(db: TenantDb | TenantTx, rows: readonly PosLayoutRow[]): Promise<PosLayoutView[]> {
  if (rows.length === 0) return [];
  const tiles = await db
    .selectFrom('pos_layout_tiles')
    .selectAll()
    .where(
      'layout_id',
      'in',
      rows.map((r) => r.id),
    )
    .orderBy('layout_id')
    .orderBy('page')
    .orderBy('position')
    .execute();
  const byLayout = new Map<string, PosLayoutTileRow[]>();
  for (const t of tiles) (byLayout.get(t.layout_id) ?? byLayout.set(t.layout_id, []).get(t.layout_id)!).push(t);
  return rows.map((r) => layoutView(r, byLayout.get(r.id) ?? []));
}

/** A layout as shown, from its row and its tiles in page and position order. */
export function layoutView(r: PosLayoutRow, tiles: readonly PosLayoutTileRow[]): PosLayoutView {
  const pages = r.page_names.map((name) => ({ name, tiles: [] as PosLayoutTileView[] }));
  for (const t of tiles) pages[t.page]?.tiles.push({ row: t.row, column: t.column, width: t.width, height: t.height, item_id: t.item_id, category_id: t.category_id, label: t.label, color: t.color });
  return { id: r.id, location_id: r.location_id, name: r.name, is_default: r.is_default, columns: r.columns, rows: r.rows, pages, created_at: iso(r.created_at), updated_at: iso(r.updated_at) };
}
