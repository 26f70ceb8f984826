import type { ExpressionBuilder } from 'kysely';
import type { TenantDb } from '@pos/db';
import type { TenantTables } from '@pos/db/tenant-types';
import { errors } from '@pos/kernel';
import { runDatatable, type Datatable, type DatatableQuery } from '../shared/datatable.ts';
import { catalogTx, findOr404, iso, newId, uniqueOr, type CatalogScope } from './catalog-scope.ts';
import { invalidatePublished } from './published/read-published-catalog.ts';
import { refreshPublished } from './published/published-catalog.ts';
import { detachFromOffers } from './offers.ts';
import { requireItemLocations } from './items.ts';
import { forgetStationCategory } from '../kitchen/stations.ts';
import { requireGrantedLocations, type Access } from '../auth/access.ts';

/** Categories (spec 1 "Items, categories, ..."): name unique within the merchant (case-insensitive). */
export interface CategoryView {
  id: string;
  name: string;
  description: string | null;
  position: number;
  items_count: number;
  created_at: string;
  updated_at: string;
}

export interface CategoryInput {
  name: string;
  description?: string | null;
  position?: number;
}

const find = (tdb: TenantDb, id: string) => findOr404('category', id, (x) => tdb.selectFrom('categories').selectAll().where('id', '=', x).executeTakeFirst());

// A builder subquery (not raw SQL): the tenant schema is applied to builder table names only.
const itemsCount = () => (eb: ExpressionBuilder<TenantTables, 'categories'>) =>
  eb.selectFrom('items').select((e) => e.fn.countAll<number>().as('n')).whereRef('items.category_id', '=', 'categories.id').as('items_count');

const view = (r: { id: string; name: string; description: string | null; position: number; items_count: number | string | null; created_at: Date; updated_at: Date }): CategoryView => ({
  id: r.id,
  name: r.name,
  description: r.description,
  position: r.position,
  items_count: Number(r.items_count ?? 0),
  created_at: iso(r.created_at)!,
  updated_at: iso(r.updated_at)!,
});

/** `GET /categories/datatable`: search on name; sort name, position, created_at. */
export function listCategories(tdb: TenantDb, q: DatatableQuery & { sort?: string }): Promise<Datatable<CategoryView>> {
  return runDatatable(tdb.selectFrom('categories'), q, {
    searchColumns: ['name'],
    sortable: ['name', 'position', 'created_at'],
    defaultSort: { column: 'position', direction: 'asc' },
    select: (qb) => qb.selectAll().select(itemsCount()),
    map: view,
  });
}

/** `GET /categories/options`. */
export async function categoryOptions(tdb: TenantDb): Promise<{ value: string; label: string }[]> {
  const rows = await tdb.selectFrom('categories').select(['id', 'name']).orderBy('position').orderBy('name').execute();
  return rows.map((r) => ({ value: r.id, label: r.name }));
}

export async function getCategory(tdb: TenantDb, id: string): Promise<CategoryView> {
  const c = await find(tdb, id);
  const row = await tdb.selectFrom('categories').selectAll().select(itemsCount()).where('id', '=', c.id).executeTakeFirstOrThrow();
  return view(row);
}

const NAME_TAKEN = () => errors.field('name', 'The name has already been taken.');
/** The unique index on lower(name): a name taken by a concurrent create or rename is the same 422. */
const NAME_INDEX = 'categories_name_unique';

async function uniqueName(tdb: TenantDb, name: string, exceptId?: string): Promise<void> {
  let q = tdb.selectFrom('categories').select('id').where((eb) => eb(eb.fn('lower', ['name']), '=', name.toLowerCase()));
  if (exceptId) q = q.where('id', '<>', exceptId);
  if (await q.executeTakeFirst()) throw NAME_TAKEN();
}

export async function createCategory(scope: CatalogScope, input: CategoryInput): Promise<CategoryView> {
  const id = await catalogTx(scope, async (tx) => {
    const name = input.name.trim();
    await uniqueName(tx, name);
    const id = newId();
    await uniqueOr(tx.insertInto('categories').values({ id, name, description: input.description ?? null, position: input.position ?? 0 }).execute(), NAME_INDEX, NAME_TAKEN);
    return id;
  });
  return getCategory(scope.tdb, id);
}

/** A rename is live on the channels: the items keep the category's name beside its id. */
export async function updateCategory(scope: CatalogScope, id: string, input: Partial<CategoryInput>): Promise<CategoryView> {
  const changed = await catalogTx(scope, async (tx) => {
    const current = await find(tx, id);
    const name = input.name?.trim();
    if (name !== undefined) await uniqueName(tx, name, current.id);
    await uniqueOr(
      tx
        .updateTable('categories')
        .set({
          ...(name !== undefined ? { name } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(input.position !== undefined ? { position: input.position } : {}),
          updated_at: scope.now,
        })
        .where('id', '=', current.id)
        .execute(),
      NAME_INDEX,
      NAME_TAKEN,
    );
    if (name === undefined || name === current.name) return [];
    const items = await tx.updateTable('items').set({ category: name, updated_at: scope.now }).where('category_id', '=', current.id).returning('id').execute();
    return refreshPublished(tx, items.map((i) => i.id));
  });
  await invalidatePublished(scope.tdb, scope.redis, scope.merchantId, changed);
  return getCategory(scope.tdb, id);
}

/**
 * A deleted category changes every offer, kitchen station and item naming it, whatever their location,
 * so the caller needs each of them within their grant as its own write would (spec 1 section 5): an
 * item's locations (null, every location, needs a caller holding every location), a station's location
 * (the offers' locations are checked by `detachFromOffers`). Else 403 `Unauthorized: Insufficient permissions`. The rows are locked (in id
 * order, as the detaching below takes them) so a location changed meanwhile is seen.
 */
async function requireCategoryReach(tx: TenantDb, access: Access, categoryId: string): Promise<void> {
  if (access.allLocations) return;
  // The offers naming it: checked by `detachFromOffers`, as for an item's delete.
  const stations = await tx
    .selectFrom('kitchen_stations')
    .select('location_id')
    .where((eb) => eb(eb.val(categoryId), '=', eb.fn.any('category_ids')))
    .orderBy('id')
    .forUpdate()
    .execute();
  requireGrantedLocations(access, stations.map((s) => s.location_id));
  const items = await tx.selectFrom('items').select('location_ids').where('category_id', '=', categoryId).orderBy('id').forUpdate().execute();
  for (const i of items) requireItemLocations(access, i.location_ids);
}

/**
 * Items of a deleted category keep existing, without a category; offers and kitchen stations stop
 * naming it (an offer for this category only refuses the deletion: 409 `category_in_offer`). All of
 * them within the caller's grant (`requireCategoryReach`), else 403 and nothing changed.
 */
export async function deleteCategory(scope: CatalogScope, id: string): Promise<void> {
  const changed = await catalogTx(scope, async (tx) => {
    // Locked first: an item being written with this category (which holds it FOR KEY SHARE) commits
    // before we look for the category's items, so it loses its category name with the others.
    const current = await findOr404('category', id, (x) => tx.selectFrom('categories').selectAll().where('id', '=', x).forUpdate().executeTakeFirst());
    await requireCategoryReach(tx, scope.access, current.id);
    await detachFromOffers(tx, scope.access, 'category', current.id, scope.now);
    await forgetStationCategory(tx, current.id, scope.now);
    const items = await tx.updateTable('items').set({ category: null, category_id: null, updated_at: scope.now }).where('category_id', '=', current.id).returning('id').execute();
    await tx.deleteFrom('categories').where('id', '=', current.id).execute();
    return refreshPublished(tx, items.map((i) => i.id));
  });
  await invalidatePublished(scope.tdb, scope.redis, scope.merchantId, changed);
}
