import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { catalogTx, findOr404, iso, newId, requireDistinct, requireIds, type CatalogScope } from './catalog-scope.ts';
import { refreshPublished } from './published/published-catalog.ts';
import { invalidatePublished } from './published/read-published-catalog.ts';
import { isUuid } from '@pos/domain/ids';
import { requireItemLocations } from './items.ts';
import { requireSelectableMinimum } from './line-bounds.ts';

/** Modifier groups with their ordered modifiers (spec 1 "Items, categories, modifiers, ..."). */
export interface ModifierView {
  id: string;
  name: string;
  price: number;
  position: number;
}

export interface ModifierGroupView {
  id: string;
  name: string;
  min_select: number;
  max_select: number;
  position: number;
  modifiers: ModifierView[];
  items_count: number;
  created_at: string;
  updated_at: string;
}

export interface ModifierGroupInput {
  name: string;
  min_select: number;
  max_select: number;
  /** The group's modifiers in order; an `id` keeps an existing modifier of this group. */
  modifiers: { id?: string; name: string; price: number }[];
}

const MIN_OVER_MAX = 'The min select may not be greater than the max select.';

async function views(tdb: TenantDb, ids?: readonly string[]): Promise<ModifierGroupView[]> {
  let q = tdb.selectFrom('modifier_groups').selectAll();
  if (ids) q = q.where('id', 'in', [...ids]);
  const groups = await q.orderBy('position').orderBy('name').orderBy('id').execute();
  if (groups.length === 0) return [];
  const gids = groups.map((g) => g.id);
  const [mods, links] = await Promise.all([
    tdb.selectFrom('modifiers').selectAll().where('modifier_group_id', 'in', gids).orderBy('position').orderBy('id').execute(),
    tdb.selectFrom('item_modifier_groups').select('modifier_group_id').where('modifier_group_id', 'in', gids).execute(),
  ]);
  return groups.map((g) => ({
    id: g.id,
    name: g.name,
    min_select: g.min_select,
    max_select: g.max_select,
    position: g.position,
    modifiers: mods.filter((m) => m.modifier_group_id === g.id).map((m) => ({ id: m.id, name: m.name, price: m.price, position: m.position })),
    items_count: links.filter((l) => l.modifier_group_id === g.id).length,
    created_at: iso(g.created_at)!,
    updated_at: iso(g.updated_at)!,
  }));
}

export const listModifierGroups = (tdb: TenantDb) => views(tdb);

export async function getModifierGroup(tdb: TenantDb, id: string): Promise<ModifierGroupView> {
  const [v] = isUuid(id) ? await views(tdb, [id]) : [];
  if (!v) throw errors.notFound('modifier group');
  return v;
}

export async function modifierGroupOptions(tdb: TenantDb): Promise<{ value: string; label: string }[]> {
  const rows = await tdb.selectFrom('modifier_groups').select(['id', 'name']).orderBy('position').orderBy('name').execute();
  return rows.map((r) => ({ value: r.id, label: r.name }));
}

/** `GET /modifiers`: every modifier with its group, in group then modifier order. */
export async function listModifiers(tdb: TenantDb): Promise<{ id: string; name: string; price: number; modifier_group_id: string; modifier_group: string }[]> {
  const rows = await tdb
    .selectFrom('modifiers')
    .innerJoin('modifier_groups', 'modifier_groups.id', 'modifiers.modifier_group_id')
    .select(['modifiers.id', 'modifiers.name', 'modifiers.price', 'modifiers.modifier_group_id', 'modifier_groups.name as modifier_group'])
    .orderBy('modifier_groups.position')
    .orderBy('modifier_groups.name')
    .orderBy('modifiers.position')
    .execute();
  return rows;
}

/** A group asking for a selection needs something to select: else no item using it could ever be ordered (kiosk, online). */
export const MIN_WITHOUT_MODIFIERS = 'The min select must be 0 when the group has no modifiers.';

function checkMinMax(min: number, max: number, modifiers: number): void {
  if (min > max) throw errors.field('min_select', MIN_OVER_MAX);
  if (min > 0 && modifiers === 0) throw errors.field('min_select', MIN_WITHOUT_MODIFIERS);
}

async function writeModifiers(tx: TenantDb, groupId: string, list: ModifierGroupInput['modifiers'], existing: ReadonlySet<string>): Promise<void> {
  const keep = list.map((m) => m.id?.toLowerCase()).filter((x): x is string => !!x);
  requireDistinct(keep, 'modifiers.id');
  // Two modifiers of one name in a group (at two prices) cannot be told apart on a screen or a ticket.
  requireDistinct(list.map((m) => m.name.trim()), 'modifiers.name');
  list.forEach((m, i) => {
    if (m.id && !existing.has(m.id.toLowerCase())) throw errors.field(`modifiers.${i}.id`, `The selected modifiers.${i}.id is invalid.`);
  });
  let q = tx.deleteFrom('modifiers').where('modifier_group_id', '=', groupId);
  if (keep.length > 0) q = q.where('id', 'not in', keep);
  await q.execute();
  for (const [position, m] of list.entries()) {
    if (m.id) await tx.updateTable('modifiers').set({ name: m.name.trim(), price: m.price, position }).where('id', '=', m.id.toLowerCase()).execute();
    else await tx.insertInto('modifiers').values({ id: newId(), modifier_group_id: groupId, name: m.name.trim(), price: m.price, position }).execute();
  }
}

export async function createModifierGroup(scope: CatalogScope, input: ModifierGroupInput): Promise<ModifierGroupView> {
  checkMinMax(input.min_select, input.max_select, input.modifiers.length);
  const id = await catalogTx(scope, async (tx) => {
    const id = newId();
    const last = await tx.selectFrom('modifier_groups').select((eb) => eb.fn.max('position').as('p')).executeTakeFirst();
    await tx
      .insertInto('modifier_groups')
      .values({ id, name: input.name.trim(), min_select: input.min_select, max_select: input.max_select, position: (last?.p ?? -1) + 1 })
      .execute();
    await writeModifiers(tx, id, input.modifiers, new Set());
    return id;
  });
  return getModifierGroup(scope.tdb, id);
}

async function itemsOf(tx: TenantDb, groupId: string): Promise<string[]> {
  return (await tx.selectFrom('item_modifier_groups').select('item_id').where('modifier_group_id', '=', groupId).execute()).map((r) => r.item_id);
}

/**
 * A group's modifiers are priced on every item using it, so changing or deleting the group needs the
 * caller's location grant over each of those items, as writing the item itself does (403 otherwise).
 * Read after the group's lock: an item being linked meanwhile has committed. Not locked themselves: an
 * item write locks its row, then the group's (key share), and the opposite order here would deadlock.
 */
async function requireGroupItemsReach(scope: CatalogScope, tx: TenantDb, itemIds: readonly string[]): Promise<void> {
  if (itemIds.length === 0) return;
  const rows = await tx.selectFrom('items').select('location_ids').where('id', 'in', [...itemIds]).execute();
  for (const r of rows) requireItemLocations(scope.access, r.location_ids);
}

export async function updateModifierGroup(scope: CatalogScope, id: string, input: Partial<ModifierGroupInput>): Promise<ModifierGroupView> {
  const changed = await catalogTx(scope, async (tx) => {
    // Locked: a concurrent update waits and then replaces the list we wrote; a concurrent delete makes this a 404.
    const current = await findOr404('modifier group', id, (x) => tx.selectFrom('modifier_groups').selectAll().where('id', '=', x).forUpdate().executeTakeFirst());
    const existing = await tx.selectFrom('modifiers').select('id').where('modifier_group_id', '=', current.id).execute();
    checkMinMax(input.min_select ?? current.min_select, input.max_select ?? current.max_select, input.modifiers?.length ?? existing.length);
    const items = await itemsOf(tx, current.id);
    await requireGroupItemsReach(scope, tx, items);
    await tx
      .updateTable('modifier_groups')
      .set({
        ...(input.name !== undefined ? { name: input.name.trim() } : {}),
        ...(input.min_select !== undefined ? { min_select: input.min_select } : {}),
        ...(input.max_select !== undefined ? { max_select: input.max_select } : {}),
        updated_at: scope.now,
      })
      .where('id', '=', current.id)
      .execute();
    if (input.modifiers !== undefined) {
      await writeModifiers(tx, current.id, input.modifiers, new Set(existing.map((m) => m.id)));
    }
    // A higher minimum must leave every item using the group orderable in one basket line.
    if (input.min_select !== undefined) await requireSelectableMinimum(tx, items, 'min_select');
    return refreshPublished(tx, items);
  });
  await invalidatePublished(scope.tdb, scope.redis, scope.merchantId, changed);
  return getModifierGroup(scope.tdb, id);
}

/** `PUT /modifier-groups/reorder`: the listed groups first, in that order; the others after them, keeping their order. */
export async function reorderModifierGroups(scope: CatalogScope, ids: readonly string[]): Promise<ModifierGroupView[]> {
  requireDistinct(ids, 'ids');
  const changed = await catalogTx(scope, async (tx) => {
    await requireIds(tx, 'modifier_groups', ids, 'ids', 'modifier group');
    const listed = ids.map((x) => x.toLowerCase());
    const rest = (await tx.selectFrom('modifier_groups').select('id').where('id', 'not in', listed.length > 0 ? listed : ['00000000-0000-0000-0000-000000000000']).orderBy('position').orderBy('name').execute()).map((r) => r.id);
    for (const [position, gid] of [...listed, ...rest].entries()) await tx.updateTable('modifier_groups').set({ position }).where('id', '=', gid).execute();
    return [] as string[];
  });
  await invalidatePublished(scope.tdb, scope.redis, scope.merchantId, changed);
  return views(scope.tdb);
}

export async function deleteModifierGroup(scope: CatalogScope, id: string): Promise<void> {
  const changed = await catalogTx(scope, async (tx) => {
    // Locked first: an item being linked to the group (which holds it FOR KEY SHARE) commits before we
    // list the group's items, so its published catalogs are recompiled too.
    const current = await findOr404('modifier group', id, (x) => tx.selectFrom('modifier_groups').select('id').where('id', '=', x).forUpdate().executeTakeFirst());
    const items = await itemsOf(tx, current.id);
    await requireGroupItemsReach(scope, tx, items);
    await tx.deleteFrom('modifier_groups').where('id', '=', current.id).execute();
    return refreshPublished(tx, items);
  });
  await invalidatePublished(scope.tdb, scope.redis, scope.merchantId, changed);
}
