import { sql } from 'kysely';
import type { TenantTx } from '@pos/db';
import { errors } from '@pos/kernel';
import { toFieldErrorMap, type FieldError } from '@pos/domain/field-error';
import { layoutGridErrors } from '@pos/domain/pos-layouts/layout-grid';
import { logActivity } from '../activity/log-activity.ts';
import { lockedIds, uniqueOr } from '../catalog/catalog-scope.ts';
import { lockLocation } from '../settings/locations.ts';
import { inTenantTx, type PosAdminScope } from './pos-admin-scope.ts';
import { findLayout, layoutView, locationLayouts, presentLayouts, type PosLayoutTileRow, type PosLayoutView } from './pos-layout-records.ts';

/**
 * `/back-office/pos/{locationId}/layouts` (spec 2, MANAGE_POS_LAYOUTS): the register screen layouts of
 * a location. Bodies are not shown by the spec; ours is `PosLayoutInput`. A write replaces the whole
 * layout (its pages and tiles) in one transaction, after the location's row is locked (`for no key
 * update`: layout writes of one location take turns, foreign-key checks elsewhere are not blocked), so
 * the one-default rule and the name check never race. Every tile is checked: inside the grid, no two
 * on one cell (`layoutGridErrors`), exactly one of `item_id` and `category_id`, and that item or
 * category exists (locked `for key share` until the commit, so a concurrent delete cannot leave a
 * dangling tile; its cascade removes tiles written before it).
 */
export interface PosLayoutTileInput {
  readonly row: number;
  readonly column: number;
  readonly width?: number | undefined;
  readonly height?: number | undefined;
  readonly item_id?: string | null | undefined;
  readonly category_id?: string | null | undefined;
  readonly label?: string | null | undefined;
  readonly color?: string | null | undefined;
}

export interface PosLayoutInput {
  readonly name: string;
  readonly is_default?: boolean | undefined;
  readonly columns: number;
  readonly rows: number;
  readonly pages: readonly { readonly name: string; readonly tiles: readonly PosLayoutTileInput[] }[];
}

export const LAYOUT_NAME_TAKEN = 'The name has already been taken.';
export const TILE_TARGET = 'A tile shows either an item (item_id) or a category (category_id), not both and not neither.';
export const TILE_ITEM_UNKNOWN = 'The selected item is invalid.';
export const TILE_CATEGORY_UNKNOWN = 'The selected category is invalid.';
export const TILE_ITEM_NOT_SOLD = "The selected item is not sold on this location's register.";
/**
 * Layouts one location may hold. Each may carry 20 pages of 144 tiles, and the register reads every
 * layout of its location at once (`GET /pos/layouts`): without a bound, one member could grow that
 * answer (and the table) without end.
 */
export const MAX_LAYOUTS_PER_LOCATION = 20;
export const LAYOUT_LIMIT = `A location has at most ${MAX_LAYOUTS_PER_LOCATION} register layouts; delete one first.`;

/** The layouts of a location, the default first, then by name. */
export async function listLayouts(scope: PosAdminScope, locationId: string): Promise<PosLayoutView[]> {
  return locationLayouts(scope.tdb, locationId);
}

export async function getLayout(scope: PosAdminScope, locationId: string, id: string): Promise<PosLayoutView> {
  const [view] = await presentLayouts(scope.tdb, [await findLayout(scope.tdb, locationId, id)]);
  return view!;
}

/** A new layout. The location's first layout is its default unless `is_default` says false. */
export async function createLayout(scope: PosAdminScope, locationId: string, input: PosLayoutInput): Promise<PosLayoutView> {
  const id = Bun.randomUUIDv7();
  return inTenantTx(scope.tdb, async (tx) => {
    await lockLocation(tx, locationId, 'no key update');
    // Counted under the location's lock: concurrent creates take turns, so the bound holds.
    const held = Number((await tx.selectFrom('pos_layouts').select((eb) => eb.fn.countAll<string>().as('n')).where('location_id', '=', locationId).executeTakeFirstOrThrow()).n);
    if (held >= MAX_LAYOUTS_PER_LOCATION) throw errors.businessRule(LAYOUT_LIMIT, { reason: 'layout_limit' });
    const first = held === 0;
    const isDefault = input.is_default ?? first;
    await checkTiles(tx, locationId, input);
    if (isDefault) await clearDefault(tx, locationId);
    const row = await uniqueOr(
      tx
        .insertInto('pos_layouts')
        .values({ id, location_id: locationId, name: input.name.trim(), is_default: isDefault, columns: input.columns, rows: input.rows, page_names: input.pages.map((p) => p.name.trim()), created_at: scope.now, updated_at: scope.now })
        .returningAll()
        .executeTakeFirstOrThrow(),
      'pos_layouts_name',
      () => errors.field('name', LAYOUT_NAME_TAKEN),
    );
    const tiles = await writeTiles(tx, id, input);
    await logActivity(tx, { userId: scope.userId, action: 'created', subject: 'pos_layout', subjectId: id, properties: { location_id: locationId, name: row.name } });
    return layoutView(row, tiles);
  });
}

/** Replaces the layout: name, grid, default flag (absent: unchanged), pages and tiles. */
export async function updateLayout(scope: PosAdminScope, locationId: string, id: string, input: PosLayoutInput): Promise<PosLayoutView> {
  return inTenantTx(scope.tdb, async (tx) => {
    await lockLocation(tx, locationId, 'no key update');
    const current = await findLayout(tx, locationId, id, { lock: true });
    const isDefault = input.is_default ?? current.is_default;
    await checkTiles(tx, locationId, input);
    if (isDefault && !current.is_default) await clearDefault(tx, locationId);
    const row = await uniqueOr(
      tx
        .updateTable('pos_layouts')
        .set({ name: input.name.trim(), is_default: isDefault, columns: input.columns, rows: input.rows, page_names: input.pages.map((p) => p.name.trim()), updated_at: scope.now })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow(),
      'pos_layouts_name',
      () => errors.field('name', LAYOUT_NAME_TAKEN),
    );
    await tx.deleteFrom('pos_layout_tiles').where('layout_id', '=', id).execute();
    const tiles = await writeTiles(tx, id, input);
    await logActivity(tx, { userId: scope.userId, action: 'updated', subject: 'pos_layout', subjectId: id, properties: { location_id: locationId, name: row.name } });
    return layoutView(row, tiles);
  });
}

/** Deletes the layout with its tiles. Deleting the default leaves the location without one until another is made the default. */
export async function deleteLayout(scope: PosAdminScope, locationId: string, id: string): Promise<void> {
  await inTenantTx(scope.tdb, async (tx) => {
    await lockLocation(tx, locationId, 'no key update');
    const current = await findLayout(tx, locationId, id, { lock: true });
    await tx.deleteFrom('pos_layouts').where('id', '=', id).execute();
    await logActivity(tx, { userId: scope.userId, action: 'deleted', subject: 'pos_layout', subjectId: id, properties: { location_id: locationId, name: current.name } });
  });
}

async function clearDefault(tx: TenantTx, locationId: string): Promise<void> {
  await tx.updateTable('pos_layouts').set({ is_default: false }).where('location_id', '=', locationId).where('is_default', '=', true).execute();
}

/**
 * Every tile's problems at once (422 with each `pages.P.tiles.T` path): the grid rules, then its one
 * target, that the target exists and, for an item, that this location's register sells it (visible, on
 * the `pos` channel, at the location), as taking an order of it requires.
 */
async function checkTiles(tx: TenantTx, locationId: string, input: PosLayoutInput): Promise<void> {
  const pages = input.pages.map((p) => ({ tiles: p.tiles.map((t) => ({ ...t, width: t.width ?? 1, height: t.height ?? 1 })) }));
  const problems: FieldError[] = layoutGridErrors({ columns: input.columns, rows: input.rows, pages });
  const targets: { field: string; table: 'items' | 'categories'; id: string }[] = [];
  input.pages.forEach((p, pi) =>
    p.tiles.forEach((t, ti) => {
      const field = `pages.${pi}.tiles.${ti}`;
      if ((t.item_id == null) === (t.category_id == null)) problems.push({ field, message: TILE_TARGET });
      else if (t.item_id != null) targets.push({ field: `${field}.item_id`, table: 'items', id: t.item_id });
      else targets.push({ field: `${field}.category_id`, table: 'categories', id: t.category_id! });
    }),
  );
  const idsOf = (table: 'items' | 'categories') => targets.filter((t) => t.table === table).map((t) => t.id);
  const [items, categories] = await Promise.all([lockedIds(tx, 'items', idsOf('items')), lockedIds(tx, 'categories', idsOf('categories'))]);
  const sold = await soldHere(tx, locationId, [...items]);
  for (const t of targets) {
    if (!(t.table === 'items' ? items : categories).has(t.id.toLowerCase())) problems.push({ field: t.field, message: t.table === 'items' ? TILE_ITEM_UNKNOWN : TILE_CATEGORY_UNKNOWN });
    else if (t.table === 'items' && !sold.has(t.id.toLowerCase())) problems.push({ field: t.field, message: TILE_ITEM_NOT_SOLD });
  }
  if (problems.length > 0) throw errors.validation(toFieldErrorMap(problems));
}

/** Of these items, those the location's register sells (the rule `upsert-order` applies to an order's lines). */
async function soldHere(tx: TenantTx, locationId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await tx
    .selectFrom('items')
    .select('id')
    .where('id', 'in', ids)
    .where('visible', '=', true)
    .where(sql<boolean>`'pos' = any(channels)`)
    .where((eb) => eb.or([eb('location_ids', 'is', null), eb(sql<string>`${locationId}::uuid`, '=', sql<string>`any(location_ids)`)]))
    .execute();
  return new Set(rows.map((r) => r.id.toLowerCase()));
}

/** The layout's tiles written, as stored (page and position order). */
async function writeTiles(tx: TenantTx, layoutId: string, input: PosLayoutInput): Promise<PosLayoutTileRow[]> {
  const rows = input.pages.flatMap((p, page) =>
    p.tiles.map((t, position) => ({
      layout_id: layoutId,
      page,
      position,
      row: t.row,
      column: t.column,
      width: t.width ?? 1,
      height: t.height ?? 1,
      item_id: t.item_id ?? null,
      category_id: t.category_id ?? null,
      label: t.label?.trim() || null,
      color: t.color ?? null,
    })),
  );
  if (rows.length > 0) await tx.insertInto('pos_layout_tiles').values(rows).execute();
  return rows;
}
