import type { TenantDb } from '@pos/db';
import { catalogTx, findOr404, iso, newId, requireDistinct, requireIds, type CatalogScope } from './catalog-scope.ts';
import { refreshPublished } from './published/published-catalog.ts';
import { invalidatePublished } from './published/read-published-catalog.ts';
import { AppError, errors } from '@pos/kernel';
import { findItemLocked, requireItemLocations } from './items.ts';
import { requireVariantGroupRoom } from './line-bounds.ts';

/** A variant group belongs to one item and lists its variants (e.g. sizes) with their own prices, in order. */
export interface VariantGroupView {
  id: string;
  item_id: string;
  name: string;
  variants: { id: string; name: string; unit_price: number; position: number }[];
  created_at: string;
  updated_at: string;
}

export interface VariantGroupInput {
  item_id: string;
  name: string;
  variants: { id?: string; name: string; unit_price: number }[];
}

/** A variant group changes what its item sells for, so it is written within the item's locations (403 otherwise). */
async function requireItemReach(scope: CatalogScope, tx: TenantDb, itemId: string): Promise<void> {
  requireItemLocations(scope.access, (await findItemLocked(tx, itemId)).location_ids);
}

const find = (tdb: TenantDb, id: string) => findOr404('variant group', id, (x) => tdb.selectFrom('variant_groups').selectAll().where('id', '=', x).executeTakeFirst());
/** Locked for a change or removal: a concurrent update waits and then replaces the list; after a concurrent delete it is a 404. */
const findLocked = (tdb: TenantDb, id: string) => findOr404('variant group', id, (x) => tdb.selectFrom('variant_groups').selectAll().where('id', '=', x).forUpdate().executeTakeFirst());

export async function getVariantGroup(tdb: TenantDb, id: string): Promise<VariantGroupView> {
  const g = await find(tdb, id);
  const variants = await tdb.selectFrom('variants').select(['id', 'name', 'unit_price', 'position']).where('variant_group_id', '=', g.id).orderBy('position').execute();
  return { id: g.id, item_id: g.item_id, name: g.name, variants, created_at: iso(g.created_at)!, updated_at: iso(g.updated_at)! };
}

async function writeVariants(tx: TenantDb, groupId: string, list: VariantGroupInput['variants']): Promise<void> {
  const existing = new Set((await tx.selectFrom('variants').select('id').where('variant_group_id', '=', groupId).execute()).map((v) => v.id));
  const keep = list.map((v) => v.id?.toLowerCase()).filter((x): x is string => !!x);
  // The same variant twice would be updated twice and kept once: refused, as for modifiers.
  requireDistinct(keep, 'variants.id');
  // Two variants of one name (a "Large" at two prices) cannot be told apart by a customer or a cashier.
  requireDistinct(list.map((v) => v.name.trim()), 'variants.name');
  list.forEach((v, i) => {
    if (v.id && !existing.has(v.id.toLowerCase())) throw errors.field(`variants.${i}.id`, `The selected variants.${i}.id is invalid.`);
  });
  let q = tx.deleteFrom('variants').where('variant_group_id', '=', groupId);
  if (keep.length > 0) q = q.where('id', 'not in', keep);
  await q.execute();
  for (const [position, v] of list.entries()) {
    if (v.id) await tx.updateTable('variants').set({ name: v.name.trim(), unit_price: v.unit_price, position }).where('id', '=', v.id.toLowerCase()).execute();
    else await tx.insertInto('variants').values({ id: newId(), variant_group_id: groupId, name: v.name.trim(), unit_price: v.unit_price, position }).execute();
  }
}

export async function createVariantGroup(scope: CatalogScope, input: VariantGroupInput): Promise<VariantGroupView> {
  const [id, changed] = await catalogTx(scope, async (tx) => {
    await requireIds(tx, 'items', [input.item_id], 'item_id', 'item id', true);
    // An item deleted at this moment is the unknown item's 422 whichever check sees it gone first.
    await requireItemReach(scope, tx, input.item_id).catch((e: unknown) => {
      if (e instanceof AppError && e.code === 'not_found') throw errors.field('item_id', 'The selected item id is invalid.');
      throw e;
    });
    // Counted under the item's lock (`requireItemReach`): two creates at once take turns.
    await requireVariantGroupRoom(tx, input.item_id.toLowerCase());
    const id = newId();
    await tx.insertInto('variant_groups').values({ id, item_id: input.item_id.toLowerCase(), name: input.name.trim() }).execute();
    await writeVariants(tx, id, input.variants);
    return [id, await refreshPublished(tx, [input.item_id.toLowerCase()])] as const;
  });
  await invalidatePublished(scope.tdb, scope.redis, scope.merchantId, changed);
  return getVariantGroup(scope.tdb, id);
}

/** The item of a variant group does not change; `variants` replaces the list (an `id` keeps a variant). */
export async function updateVariantGroup(scope: CatalogScope, id: string, input: Partial<Omit<VariantGroupInput, 'item_id'>>): Promise<VariantGroupView> {
  const changed = await catalogTx(scope, async (tx) => {
    // The item first (as an item delete locks it before its cascade reaches the group), then the group.
    await requireItemReach(scope, tx, (await find(tx, id)).item_id);
    const g = await findLocked(tx, id);
    await tx
      .updateTable('variant_groups')
      .set({ ...(input.name !== undefined ? { name: input.name.trim() } : {}), updated_at: scope.now })
      .where('id', '=', g.id)
      .execute();
    if (input.variants !== undefined) await writeVariants(tx, g.id, input.variants);
    return refreshPublished(tx, [g.item_id]);
  });
  await invalidatePublished(scope.tdb, scope.redis, scope.merchantId, changed);
  return getVariantGroup(scope.tdb, id);
}

export async function deleteVariantGroup(scope: CatalogScope, id: string): Promise<void> {
  const changed = await catalogTx(scope, async (tx) => {
    // The item first (as an item delete locks it before its cascade reaches the group), then the group.
    await requireItemReach(scope, tx, (await find(tx, id)).item_id);
    const g = await findLocked(tx, id);
    await tx.deleteFrom('variant_groups').where('id', '=', g.id).execute();
    return refreshPublished(tx, [g.item_id]);
  });
  await invalidatePublished(scope.tdb, scope.redis, scope.merchantId, changed);
}
