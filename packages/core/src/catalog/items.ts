import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { ALLERGEN_SLUGS } from '../options/allergens.ts';
import { DIETARY_PREFERENCES, DIETARY_SUPPLEMENTS } from '../options/dietary.ts';
import { runDatatable, type Datatable, type DatatableQuery } from '../shared/datatable.ts';
import { catalogTx, findOr404, iso, newId, requireDistinct, requireIds, type CatalogScope } from './catalog-scope.ts';
import { requireTaxRate } from './tax-rates.ts';
import { refreshPublished, writePublished } from './published/published-catalog.ts';
import { invalidatePublished } from './published/read-published-catalog.ts';
import { isUuid } from '@pos/domain/ids';
import { requireGrantWithin, type Access } from '../auth/access.ts';
import { detachFromOffers } from './offers.ts';
import { requireSelectableMinimum } from './line-bounds.ts';

/** Sales channels an item (or a menu, or an offer) can be sold on. */
export const CHANNELS = ['pos', 'kiosk', 'online_ordering', 'qr_ordering', 'delivery'] as const;
export type Channel = (typeof CHANNELS)[number];

const DIETARY_SLUGS: ReadonlySet<string> = new Set([...DIETARY_PREFERENCES, ...DIETARY_SUPPLEMENTS].map((d) => d.value));
const ALLERGENS: ReadonlySet<string> = new Set(ALLERGEN_SLUGS);

export interface ItemView {
  id: string;
  name: string;
  description: string | null;
  sku: string | null;
  unit_price: number;
  vat_rate: number;
  category_id: string | null;
  category: { id: string; name: string } | null;
  allergens: string[];
  dietary: string[];
  channels: string[];
  /** null: every location. */
  location_ids: string[] | null;
  visible: boolean;
  allow_negative_stock: boolean;
  image_content_id: string | null;
  modifier_group_ids: string[];
  variant_groups: { id: string; name: string }[];
  created_at: string;
  updated_at: string;
}

export interface ItemInput {
  name: string;
  description?: string | null;
  sku?: string | null;
  unit_price: number;
  vat_rate: number;
  category_id: string | null;
  allergens?: string[];
  dietary?: string[];
  channels?: string[];
  location_ids?: string[] | null;
  visible?: boolean;
  allow_negative_stock?: boolean;
  image_content_id?: string | null;
  modifier_group_ids?: string[];
}

/**
 * An item is sold at its locations (`null`: every location, including ones created later), so writing
 * it (price, name, availability, modifier groups, variants) is limited to the caller's location grant
 * as offers and menus are: every location must be granted, and `null` needs a caller holding every
 * location; otherwise 403 `Unauthorized: Insufficient permissions`.
 */
export function requireItemLocations(access: Access, locationIds: readonly string[] | null): void {
  requireGrantWithin(access, { allLocations: locationIds === null, locationIds: locationIds ?? [] });
}

/** The item's id and locations, its row locked until the transaction ends (a concurrent change of its locations waits). */
export const findItemLocked = (tx: TenantDb, id: string) =>
  findOr404('item', id, (x) => tx.selectFrom('items').select(['id', 'location_ids']).where('id', '=', x).forUpdate().executeTakeFirst());

type ItemRow = Awaited<ReturnType<typeof loadRows>>[number];

function loadRows(tdb: TenantDb, ids: readonly string[]) {
  return (ids.length === 0 ? tdb.selectFrom('items').where((eb) => eb.val(false)) : tdb.selectFrom('items').where('items.id', 'in', [...ids]))
    .leftJoin('categories', 'categories.id', 'items.category_id')
    .selectAll('items')
    .select('categories.name as category_name')
    .execute();
}

async function views(tdb: TenantDb, rows: readonly ItemRow[]): Promise<ItemView[]> {
  const ids = rows.map((r) => r.id);
  if (ids.length === 0) return [];
  const [mgs, vgs] = await Promise.all([
    tdb.selectFrom('item_modifier_groups').select(['item_id', 'modifier_group_id']).where('item_id', 'in', ids).orderBy('position').execute(),
    tdb.selectFrom('variant_groups').select(['id', 'item_id', 'name']).where('item_id', 'in', ids).orderBy('created_at').orderBy('id').execute(),
  ]);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description,
    sku: r.sku,
    unit_price: r.unit_price,
    vat_rate: r.vat_rate,
    category_id: r.category_id,
    category: r.category_id && r.category_name ? { id: r.category_id, name: r.category_name } : null,
    allergens: [...r.allergens],
    dietary: [...r.dietary],
    channels: [...r.channels],
    location_ids: r.location_ids ? [...r.location_ids] : null,
    visible: r.visible,
    allow_negative_stock: r.allow_negative_stock,
    image_content_id: r.image_content_id,
    modifier_group_ids: mgs.filter((m) => m.item_id === r.id).map((m) => m.modifier_group_id),
    variant_groups: vgs.filter((v) => v.item_id === r.id).map((v) => ({ id: v.id, name: v.name })),
    created_at: iso(r.created_at)!,
    updated_at: iso(r.updated_at)!,
  }));
}

export async function getItem(tdb: TenantDb, id: string): Promise<ItemView> {
  const rows = isUuid(id) ? await loadRows(tdb, [id]) : [];
  if (rows.length === 0) throw errors.notFound('item');
  return (await views(tdb, rows))[0]!;
}

export interface ItemListQuery extends DatatableQuery {
  sort?: string;
  category_id?: string;
  visible?: boolean;
  channel?: string;
}

/** `GET /items/datatable`: search on name or sku; filters category_id, visible, channel; sort name, unit_price, vat_rate, created_at, updated_at. */
export async function listItems(tdb: TenantDb, q: ItemListQuery): Promise<Datatable<ItemView>> {
  let base = tdb.selectFrom('items');
  if (q.category_id !== undefined) base = isUuid(q.category_id) ? base.where('category_id', '=', q.category_id) : base.where((eb) => eb.val(false));
  if (q.visible !== undefined) base = base.where('visible', '=', q.visible);
  if (q.channel !== undefined) base = base.where((eb) => eb(eb.val(q.channel), '=', eb.fn.any('channels')));
  const page = await runDatatable<{ id: string }, string>(base, q, {
    searchColumns: ['name', 'sku'],
    sortable: ['name', 'unit_price', 'vat_rate', 'created_at', 'updated_at'],
    defaultSort: { column: 'name', direction: 'asc' },
    select: (qb) => qb.select('id'),
    map: (r) => r.id,
  });
  const rows = await loadRows(tdb, page.data);
  const byId = new Map((await views(tdb, rows)).map((v) => [v.id, v]));
  return { ...page, data: page.data.map((id) => byId.get(id)!) };
}

/** `GET /items/options`: select options (id, name, price). */
export async function itemOptions(tdb: TenantDb, q: { search?: string; category_id?: string }): Promise<{ value: string; label: string; unit_price: number }[]> {
  let qb = tdb.selectFrom('items').select(['id', 'name', 'unit_price']);
  if (q.category_id !== undefined) qb = isUuid(q.category_id) ? qb.where('category_id', '=', q.category_id) : qb.where((eb) => eb.val(false));
  if (q.search?.trim()) qb = qb.where('name', 'ilike', `%${q.search.trim().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  const rows = await qb.orderBy('name').orderBy('id').limit(500).execute();
  return rows.map((r) => ({ value: r.id, label: r.name, unit_price: r.unit_price }));
}

function requireSlugs(values: readonly string[] | undefined, allowed: ReadonlySet<string>, field: string): void {
  if (!values) return;
  const problems: Record<string, string[]> = {};
  values.forEach((v, i) => {
    if (!allowed.has(v)) problems[`${field}.${i}`] = [`The selected ${field}.${i} is invalid.`];
  });
  if (Object.keys(problems).length > 0) throw errors.validation(problems);
  requireDistinct(values, field);
}

/** Checks what the schema cannot: option slugs, tax rate, and that every referenced id is the merchant's. */
async function validate(tx: TenantDb, input: Partial<ItemInput>): Promise<void> {
  requireSlugs(input.allergens, ALLERGENS, 'allergens');
  requireSlugs(input.dietary, DIETARY_SLUGS, 'dietary');
  if (input.channels) requireDistinct(input.channels, 'channels');
  if (input.category_id) await requireIds(tx, 'categories', [input.category_id], 'category_id', 'category id', true);
  if (input.location_ids) {
    requireDistinct(input.location_ids, 'location_ids');
    await requireIds(tx, 'locations', input.location_ids, 'location_ids', 'location');
  }
  if (input.modifier_group_ids) {
    requireDistinct(input.modifier_group_ids, 'modifier_group_ids');
    await requireIds(tx, 'modifier_groups', input.modifier_group_ids, 'modifier_group_ids', 'modifier group');
  }
  if (input.image_content_id) await requireIds(tx, 'contents', [input.image_content_id], 'image_content_id', 'image content id', true);
  if (input.vat_rate !== undefined) await requireTaxRate(tx, input.vat_rate);
}

async function categoryName(tx: TenantDb, id: string | null): Promise<string | null> {
  if (!id) return null;
  // FOR SHARE: a rename in flight commits first (and we read its name) or waits for our item (and renames it too).
  return (await tx.selectFrom('categories').select('name').where('id', '=', id.toLowerCase()).forShare().executeTakeFirst())?.name ?? null;
}

async function setModifierGroups(tx: TenantDb, itemId: string, ids: readonly string[]): Promise<void> {
  await tx.deleteFrom('item_modifier_groups').where('item_id', '=', itemId).execute();
  if (ids.length > 0) await tx.insertInto('item_modifier_groups').values(ids.map((g, position) => ({ item_id: itemId, modifier_group_id: g.toLowerCase(), position }))).execute();
  // Groups asking for more choices together than a basket line carries: an item nobody could order.
  await requireSelectableMinimum(tx, [itemId], 'modifier_group_ids');
}

export async function createItem(scope: CatalogScope, input: ItemInput): Promise<ItemView> {
  const id = await catalogTx(scope, async (tx) => {
    await validate(tx, input);
    requireItemLocations(scope.access, input.location_ids ?? null);
    const id = newId();
    await tx
      .insertInto('items')
      .values({
        id,
        name: input.name.trim(),
        description: input.description ?? null,
        sku: input.sku ?? null,
        unit_price: input.unit_price,
        vat_rate: input.vat_rate,
        category_id: input.category_id?.toLowerCase() ?? null,
        category: await categoryName(tx, input.category_id),
        allergens: input.allergens ?? [],
        dietary: input.dietary ?? [],
        ...(input.channels ? { channels: input.channels } : {}),
        location_ids: input.location_ids ?? null,
        visible: input.visible ?? true,
        allow_negative_stock: input.allow_negative_stock ?? false,
        image_content_id: input.image_content_id?.toLowerCase() ?? null,
      })
      .execute();
    await setModifierGroups(tx, id, input.modifier_group_ids ?? []);
    return id;
  });
  return getItem(scope.tdb, id);
}

/** Partial update within the caller's location grant (the item's current locations and any new ones); price, name, VAT and availability are live on the channels at once (published catalogs showing the item are recompiled in the same transaction). */
export async function updateItem(scope: CatalogScope, id: string, input: Partial<ItemInput>): Promise<ItemView> {
  const changed = await catalogTx(scope, async (tx) => {
    const current = await findItemLocked(tx, id);
    requireItemLocations(scope.access, current.location_ids);
    await validate(tx, input);
    if (input.location_ids !== undefined) requireItemLocations(scope.access, input.location_ids);
    await tx
      .updateTable('items')
      .set({
        ...(input.name !== undefined ? { name: input.name.trim() } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.sku !== undefined ? { sku: input.sku } : {}),
        ...(input.unit_price !== undefined ? { unit_price: input.unit_price } : {}),
        ...(input.vat_rate !== undefined ? { vat_rate: input.vat_rate } : {}),
        ...(input.category_id !== undefined ? { category_id: input.category_id?.toLowerCase() ?? null, category: await categoryName(tx, input.category_id) } : {}),
        ...(input.allergens !== undefined ? { allergens: input.allergens } : {}),
        ...(input.dietary !== undefined ? { dietary: input.dietary } : {}),
        ...(input.channels !== undefined ? { channels: input.channels } : {}),
        ...(input.location_ids !== undefined ? { location_ids: input.location_ids } : {}),
        ...(input.visible !== undefined ? { visible: input.visible } : {}),
        ...(input.allow_negative_stock !== undefined ? { allow_negative_stock: input.allow_negative_stock } : {}),
        ...(input.image_content_id !== undefined ? { image_content_id: input.image_content_id?.toLowerCase() ?? null } : {}),
        updated_at: scope.now,
      })
      .where('id', '=', current.id)
      .execute();
    if (input.modifier_group_ids !== undefined) await setModifierGroups(tx, current.id, input.modifier_group_ids);
    return refreshPublished(tx, [current.id]);
  });
  await invalidatePublished(scope.tdb, scope.redis, scope.merchantId, changed);
  return getItem(scope.tdb, id);
}

/** Removes the item from every display group and offer (within the caller's location grant); published menus showing it are recompiled. An offer for this item only refuses it (409 `item_in_offer`). */
export async function deleteItem(scope: CatalogScope, id: string): Promise<void> {
  const changed = await catalogTx(scope, async (tx) => {
    // Locked first: a write that holds the item (a menu save, a new variant group) commits before we
    // look for the published menus showing it, or finds it gone.
    const current = await findItemLocked(tx, id);
    requireItemLocations(scope.access, current.location_ids);
    await detachFromOffers(tx, scope.access, 'item', current.id, scope.now);
    const affected = await refreshTargets(tx, current.id);
    await tx.deleteFrom('items').where('id', '=', current.id).execute();
    for (const t of affected) await writePublished(tx, t.location_id, t.menu_id);
    return affected.map((t) => t.location_id);
  });
  await invalidatePublished(scope.tdb, scope.redis, scope.merchantId, changed);
}

async function refreshTargets(tx: TenantDb, itemId: string) {
  return tx
    .selectFrom('published_catalogs')
    .select(['location_id', 'menu_id'])
    .where('menu_id', 'is not', null)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('display_groups')
          .innerJoin('display_group_items', 'display_group_items.display_group_id', 'display_groups.id')
          .select('display_groups.id')
          .whereRef('display_groups.menu_id', '=', 'published_catalogs.menu_id')
          .where('display_group_items.item_id', '=', itemId),
      ),
    )
    .forUpdate()
    .execute();
}
