import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { paging, likePattern, type Datatable, type DatatableQuery } from '../shared/datatable.ts';
import { catalogTx, iso, newId, requireDistinct, requireIds, type CatalogScope } from './catalog-scope.ts';
import { isUuid } from '@pos/domain/ids';

/**
 * Inventories (spec 1 "Content, inventories, tax rates"): stock per item and location, and the history
 * of movements that made it. Stock never goes below zero unless the item allows it
 * (`allow_negative_stock`): such a movement is a 422 with reason `insufficient_stock`, nothing written.
 */
export const MOVEMENT_TYPES = ['restock', 'sale', 'waste', 'adjustment', 'count'] as const;
export type MovementType = (typeof MOVEMENT_TYPES)[number];

export interface StockRow {
  item_id: string;
  item_name: string;
  location_id: string;
  location_name: string;
  quantity: number;
  allow_negative_stock: boolean;
  updated_at: string;
}

export interface HistoryEntry {
  id: string;
  item_id: string;
  location_id: string;
  type: MovementType;
  quantity_change: number;
  quantity_after: number;
  note: string | null;
  user_id: string | null;
  created_at: string;
}

const entryView = (r: { id: string; item_id: string; location_id: string; type: MovementType; quantity_change: number; quantity_after: number; note: string | null; user_id: string | null; created_at: Date }): HistoryEntry => ({
  ...r,
  created_at: iso(r.created_at)!,
});

/**
 * `GET /inventories`: the stock overview (data-table form), one row per item and location that has
 * stock records; search on the item name; filters location_id, item_id; with `item_id` and
 * `location_id` both given, `history` holds that stock's movements, newest first (at most 100).
 */
export async function inventoryOverview(
  scope: Pick<CatalogScope, 'tdb' | 'access'>,
  q: DatatableQuery & { location_id?: string; item_id?: string },
): Promise<Datatable<StockRow> & { history: HistoryEntry[] | null }> {
  const { page, perPage, offset } = paging(q);
  let base = scope.tdb
    .selectFrom('inventory_levels')
    .innerJoin('items', 'items.id', 'inventory_levels.item_id')
    .innerJoin('locations', 'locations.id', 'inventory_levels.location_id');
  if (!scope.access.allLocations) base = scope.access.locationIds.size === 0 ? base.where((eb) => eb.val(false)) : base.where('inventory_levels.location_id', 'in', [...scope.access.locationIds]);
  if (q.location_id !== undefined) base = isUuid(q.location_id) ? base.where('inventory_levels.location_id', '=', q.location_id) : base.where((eb) => eb.val(false));
  if (q.item_id !== undefined) base = isUuid(q.item_id) ? base.where('inventory_levels.item_id', '=', q.item_id) : base.where((eb) => eb.val(false));
  if (q.search?.trim()) base = base.where('items.name', 'ilike', likePattern(q.search.trim()));
  const [count, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    base
      .select(['inventory_levels.item_id', 'items.name as item_name', 'inventory_levels.location_id', 'locations.name as location_name', 'inventory_levels.quantity', 'items.allow_negative_stock', 'inventory_levels.updated_at'])
      .orderBy('items.name')
      .orderBy('locations.name')
      .orderBy('inventory_levels.item_id')
      .limit(perPage)
      .offset(offset)
      .execute(),
  ]);
  let history: HistoryEntry[] | null = null;
  if (q.item_id && q.location_id && isUuid(q.item_id) && isUuid(q.location_id) && (scope.access.allLocations || scope.access.locationIds.has(q.location_id.toLowerCase()))) {
    const h = await scope.tdb.selectFrom('inventory_history').selectAll().where('item_id', '=', q.item_id).where('location_id', '=', q.location_id).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(100).execute();
    history = h.map(entryView);
  }
  return { data: rows.map((r) => ({ ...r, updated_at: iso(r.updated_at)! })), total: Number(count.n), page, per_page: perPage, history };
}

export interface MovementInput {
  item_id: string;
  location_id: string;
  type: MovementType;
  /** A change (restock, sale, waste, adjustment) or, for `count`, the stock counted. */
  quantity: number;
  note?: string | null;
}

/** Largest stock (either sign) a location holds of an item: well inside PostgreSQL's integer. */
const MAX_STOCK = 1_000_000_000;

/** Movements whose quantity is a positive count of units (the type gives the direction). */
const POSITIVE_TYPES: ReadonlySet<MovementType> = new Set(['restock', 'sale', 'waste']);

/** The signed change a movement makes, given the current stock (restock, sale and waste take a positive quantity). */
export function changeOf(type: MovementType, quantity: number, current: number): number {
  switch (type) {
    case 'restock':
      return quantity;
    case 'sale':
    case 'waste':
      return -quantity;
    case 'adjustment':
      return quantity;
    case 'count':
      return quantity - current;
  }
}

const insufficient = () => errors.businessRule('Not enough stock: this item may not go below zero.', { reason: 'insufficient_stock', errors: { quantity: ['Not enough stock: this item may not go below zero.'] } });

/** `POST /inventories`: records a movement and moves the stock, in one transaction (the stock row is locked). */
export async function recordMovement(scope: CatalogScope & { userId: string }, input: MovementInput): Promise<{ entry: HistoryEntry; quantity: number }> {
  return catalogTx(scope, async (tx) => {
    await requireIds(tx, 'items', [input.item_id], 'item_id', 'item id', true);
    await requireIds(tx, 'locations', [input.location_id], 'location_id', 'location id', true);
    const itemId = input.item_id.toLowerCase();
    const locationId = input.location_id.toLowerCase();
    if (!scope.access.allLocations && !scope.access.locationIds.has(locationId)) throw errors.insufficientPermissions();
    // Restock, sale and waste carry a positive quantity (the type gives the sign); a negative one is
    // refused rather than flipped, so a restock can never remove stock nor a waste add it.
    if (POSITIVE_TYPES.has(input.type) && input.quantity < 1) throw errors.field('quantity', 'The quantity field must be at least 1.');
    if (input.type === 'count' && input.quantity < 0) throw errors.field('quantity', 'A counted stock cannot be negative.');
    const item = await tx.selectFrom('items').select('allow_negative_stock').where('id', '=', itemId).executeTakeFirstOrThrow();
    await tx.insertInto('inventory_levels').values({ item_id: itemId, location_id: locationId, quantity: 0 }).onConflict((oc) => oc.columns(['item_id', 'location_id']).doNothing()).execute();
    const level = await tx.selectFrom('inventory_levels').select('quantity').where('item_id', '=', itemId).where('location_id', '=', locationId).forUpdate().executeTakeFirstOrThrow();
    const change = changeOf(input.type, input.quantity, level.quantity);
    const after = level.quantity + change;
    // Refused when it takes the stock down below zero; one that raises a negative stock (a restock after
    // sales took it below zero, or after negative stock was turned off) is what brings it back.
    if (after < 0 && change < 0 && !item.allow_negative_stock) throw insufficient();
    if (!Number.isSafeInteger(after) || Math.abs(after) > MAX_STOCK) throw errors.field('quantity', 'The stock would be out of range.');
    await tx.updateTable('inventory_levels').set({ quantity: after, updated_at: scope.now }).where('item_id', '=', itemId).where('location_id', '=', locationId).execute();
    const entry = await tx
      .insertInto('inventory_history')
      .values({ id: newId(), item_id: itemId, location_id: locationId, type: input.type, quantity_change: change, quantity_after: after, note: input.note ?? null, user_id: scope.userId })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { entry: entryView(entry), quantity: after };
  });
}

/**
 * `DELETE /inventories`: removes history entries and takes their change back out of the stock (so the
 * stock stays the sum of its history). Every id must be the merchant's (422 `ids.N`); a removal that
 * would take an item below zero (unless it allows it) is a 422 `insufficient_stock`; nothing is removed then.
 * An entry already removed (by an earlier or a concurrent request) is unknown: 422 `ids.N`.
 */
export async function deleteMovements(scope: CatalogScope, ids: readonly string[]): Promise<number> {
  requireDistinct(ids, 'ids');
  return catalogTx(scope, async (tx) => {
    // The entries are locked: the same entry removed by two requests at once is taken out of the stock
    // once; the later request waits, finds it gone and answers as for an unknown id (422 `ids.N`).
    await requireIds(tx, 'inventory_history', ids, 'ids', 'inventory history entry', false, 'update');
    const lower = ids.map((x) => x.toLowerCase());
    const entries = await tx.selectFrom('inventory_history').select(['id', 'item_id', 'location_id', 'quantity_change']).where('id', 'in', lower).execute();
    for (const e of entries) if (!scope.access.allLocations && !scope.access.locationIds.has(e.location_id)) throw errors.insufficientPermissions();
    const byStock = new Map<string, { item_id: string; location_id: string; change: number }>();
    for (const e of entries) {
      const k = `${e.item_id}:${e.location_id}`;
      const cur = byStock.get(k) ?? { item_id: e.item_id, location_id: e.location_id, change: 0 };
      cur.change += e.quantity_change;
      byStock.set(k, cur);
    }
    for (const s of byStock.values()) {
      const level = await tx.selectFrom('inventory_levels').select('quantity').where('item_id', '=', s.item_id).where('location_id', '=', s.location_id).forUpdate().executeTakeFirstOrThrow();
      const item = await tx.selectFrom('items').select('allow_negative_stock').where('id', '=', s.item_id).executeTakeFirstOrThrow();
      const after = level.quantity - s.change;
      if (after < 0 && after < level.quantity && !item.allow_negative_stock) throw insufficient();
      // The bound a movement keeps (above): taking back large counts could push the stock past it, and
      // past PostgreSQL's integer (a 500).
      if (!Number.isSafeInteger(after) || Math.abs(after) > MAX_STOCK) throw errors.field('ids', 'The stock would be out of range.');
      await tx.updateTable('inventory_levels').set({ quantity: after, updated_at: scope.now }).where('item_id', '=', s.item_id).where('location_id', '=', s.location_id).execute();
    }
    await tx.deleteFrom('inventory_history').where('id', 'in', lower).execute();
    return entries.length;
  });
}
