import type { TenantDb } from '@pos/db';

/**
 * The published catalog of one location: what every channel (register bootstrap, kiosk, online
 * ordering) reads. Compiled from the menu and the items in the publishing transaction and stored as one
 * row per location (`published_catalogs`), so a reader sees either the old or the new whole, never a
 * mix. `version` grows with every publish or withdrawal at that location.
 */
export interface PublishedModifierGroup {
  id: string;
  name: string;
  min_select: number;
  max_select: number;
  modifiers: { id: string; name: string; price: number }[];
}

export interface PublishedItem {
  id: string;
  name: string;
  description: string | null;
  unit_price: number;
  vat_rate: number;
  category_id: string | null;
  category: string | null;
  allergens: string[];
  dietary: string[];
  /** Channels the item is sold on. */
  channels: string[];
  image_content_id: string | null;
  modifier_groups: PublishedModifierGroup[];
  variant_groups: { id: string; name: string; variants: { id: string; name: string; unit_price: number }[] }[];
}

export interface PublishedGroup {
  id: string;
  name: string;
  position: number;
  parent_id: string | null;
  items: PublishedItem[];
}

export interface PublishedMenu {
  menu_id: string;
  name: string;
  /** Channels the menu is published on. */
  channels: string[];
  /** Groups depth-first: a parent before its children, siblings by position then name. */
  display_groups: PublishedGroup[];
}

export interface PublishedCatalog {
  location_id: string;
  version: number;
  /** null when the location has no published menu. */
  menu: PublishedMenu | null;
}

/** Orders groups depth-first (parent, then its children), siblings by position then name then id. */
export function depthFirst<G extends { id: string; parent_id: string | null; position: number; name: string }>(groups: readonly G[]): G[] {
  const byParent = new Map<string | null, G[]>();
  const ids = new Set(groups.map((g) => g.id));
  for (const g of groups) {
    const key = g.parent_id !== null && ids.has(g.parent_id) ? g.parent_id : null;
    byParent.set(key, [...(byParent.get(key) ?? []), g]);
  }
  for (const list of byParent.values()) list.sort((a, b) => a.position - b.position || a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  const out: G[] = [];
  const visit = (parent: string | null) => {
    for (const g of byParent.get(parent) ?? []) {
      out.push(g);
      visit(g.id);
    }
  };
  visit(null);
  return out;
}

/** Builds the published form of a menu from its saved structure and the current items. */
export async function compileMenu(tx: TenantDb, menuId: string, locationId: string): Promise<PublishedMenu | null> {
  const db = tx as TenantDb;
  const menu = await db.selectFrom('menus').select(['id', 'name', 'channels']).where('id', '=', menuId).executeTakeFirst();
  if (!menu) return null;
  const groups = await db.selectFrom('display_groups').select(['id', 'name', 'position', 'parent_id']).where('menu_id', '=', menuId).execute();
  const links =
    groups.length === 0
      ? []
      : await db
          .selectFrom('display_group_items')
          .innerJoin('items', 'items.id', 'display_group_items.item_id')
          .leftJoin('categories', 'categories.id', 'items.category_id')
          .select([
            'display_group_items.display_group_id',
            'display_group_items.position',
            'items.id',
            'items.name',
            'items.description',
            'items.unit_price',
            'items.vat_rate',
            'items.category_id',
            'items.category',
            'items.allergens',
            'items.dietary',
            'items.channels',
            'items.visible',
            'items.location_ids',
            'items.image_content_id',
          ])
          .where(
            'display_group_items.display_group_id',
            'in',
            groups.map((g) => g.id),
          )
          .execute();
  const shown = links.filter((l) => l.visible && (l.location_ids === null || l.location_ids.includes(locationId)));
  const itemIds = [...new Set(shown.map((l) => l.id))];
  const mg =
    itemIds.length === 0
      ? []
      : await db
          .selectFrom('item_modifier_groups')
          .innerJoin('modifier_groups', 'modifier_groups.id', 'item_modifier_groups.modifier_group_id')
          .select(['item_modifier_groups.item_id', 'item_modifier_groups.position', 'modifier_groups.id', 'modifier_groups.name', 'modifier_groups.min_select', 'modifier_groups.max_select'])
          .where('item_modifier_groups.item_id', 'in', itemIds)
          .orderBy('item_modifier_groups.position')
          .execute();
  const groupIds = [...new Set(mg.map((g) => g.id))];
  const mods =
    groupIds.length === 0
      ? []
      : await db.selectFrom('modifiers').select(['id', 'modifier_group_id', 'name', 'price']).where('modifier_group_id', 'in', groupIds).orderBy('position').orderBy('id').execute();
  const vgs =
    itemIds.length === 0
      ? []
      : await db
          .selectFrom('variant_groups')
          .innerJoin('variants', 'variants.variant_group_id', 'variant_groups.id')
          .select(['variant_groups.id as group_id', 'variant_groups.item_id', 'variant_groups.name as group_name', 'variants.id', 'variants.name', 'variants.unit_price'])
          .where('variant_groups.item_id', 'in', itemIds)
          .orderBy('variant_groups.created_at')
          .orderBy('variants.position')
          .execute();

  const modifierGroupsOf = (itemId: string): PublishedModifierGroup[] =>
    mg
      .filter((g) => g.item_id === itemId)
      .map((g) => ({
        id: g.id,
        name: g.name,
        min_select: g.min_select,
        max_select: g.max_select,
        modifiers: mods.filter((m) => m.modifier_group_id === g.id).map((m) => ({ id: m.id, name: m.name, price: m.price })),
      }));
  const variantGroupsOf = (itemId: string) => {
    const out: PublishedItem['variant_groups'] = [];
    for (const v of vgs.filter((x) => x.item_id === itemId)) {
      let g = out.find((x) => x.id === v.group_id);
      if (!g) out.push((g = { id: v.group_id, name: v.group_name, variants: [] }));
      g.variants.push({ id: v.id, name: v.name, unit_price: v.unit_price });
    }
    return out;
  };

  return {
    menu_id: menu.id,
    name: menu.name,
    channels: [...menu.channels],
    display_groups: depthFirst(groups).map((g) => ({
      id: g.id,
      name: g.name,
      position: g.position,
      parent_id: g.parent_id,
      items: shown
        .filter((l) => l.display_group_id === g.id)
        .sort((a, b) => a.position - b.position || a.name.localeCompare(b.name) || a.id.localeCompare(b.id))
        .map((l) => ({
          id: l.id,
          name: l.name,
          description: l.description,
          unit_price: l.unit_price,
          vat_rate: l.vat_rate,
          category_id: l.category_id,
          category: l.category,
          allergens: [...l.allergens],
          dietary: [...l.dietary],
          channels: [...l.channels],
          image_content_id: l.image_content_id,
          modifier_groups: modifierGroupsOf(l.id),
          variant_groups: variantGroupsOf(l.id),
        })),
    })),
  };
}

/**
 * Writes the location's published catalog (the given menu, or none) in the caller's transaction and
 * returns the new version. The row is locked for the update, so two publishes at one location serialise.
 */
export async function writePublished(tx: TenantDb, locationId: string, menuId: string | null): Promise<number> {
  const payload = menuId ? await compileMenu(tx, menuId, locationId) : null;
  const row = await tx
    .insertInto('published_catalogs')
    .values({ location_id: locationId, menu_id: menuId, version: 1, payload: JSON.stringify(payload) })
    .onConflict((oc) =>
      oc.column('location_id').doUpdateSet((eb) => ({
        menu_id: menuId,
        version: eb('published_catalogs.version', '+', 1),
        payload: JSON.stringify(payload),
        published_at: new Date(),
      })),
    )
    .returning('version')
    .executeTakeFirstOrThrow();
  return Number(row.version);
}

/**
 * Recompiles the published catalogs that show any of `itemIds` (every published catalog when omitted),
 * in the caller's transaction: item, category and modifier edits are live on the channels at once.
 * Returns the locations whose catalog changed (their cache is invalidated after commit).
 */
export async function refreshPublished(tx: TenantDb, itemIds?: readonly string[]): Promise<string[]> {
  let q = tx.selectFrom('published_catalogs').select(['location_id', 'menu_id']).where('menu_id', 'is not', null);
  if (itemIds) {
    if (itemIds.length === 0) return [];
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('display_groups')
          .innerJoin('display_group_items', 'display_group_items.display_group_id', 'display_groups.id')
          .select('display_groups.id')
          .whereRef('display_groups.menu_id', '=', 'published_catalogs.menu_id')
          .where('display_group_items.item_id', 'in', [...itemIds]),
      ),
    );
  }
  // Locked, so a publish committing meanwhile is waited for and its new menu is what gets recompiled.
  const rows = await q.forUpdate().execute();
  for (const r of rows) await writePublished(tx, r.location_id, r.menu_id);
  return rows.map((r) => r.location_id);
}

/** Recompiles the published catalogs of one menu (it is published at its location). */
export async function refreshMenu(tx: TenantDb, menuId: string): Promise<string[]> {
  const rows = await tx.selectFrom('published_catalogs').select('location_id').where('menu_id', '=', menuId).forUpdate().execute();
  for (const r of rows) await writePublished(tx, r.location_id, menuId);
  return rows.map((r) => r.location_id);
}
