import type { Kysely } from 'kysely';

/**
 * Deleted items and categories leave offers and kitchen stations (decisions, "Catalog structure after
 * a prober's pass"): a deletion now takes its id out of `offers.item_ids` / `offers.category_ids` and
 * `kitchen_stations.category_ids`. This clears the ids earlier deletions left behind, so those records
 * read back and save again. An offer whose every target is gone keeps its lists (emptied, it would
 * discount every item); it matches nothing, as before. Stations and offers are few per merchant.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const items = new Set((await db.selectFrom('items').select('id').execute()).map((r: { id: string }) => r.id));
  const categories = new Set((await db.selectFrom('categories').select('id').execute()).map((r: { id: string }) => r.id));
  const offers: { id: string; item_ids: string[]; category_ids: string[] }[] = await db.selectFrom('offers').select(['id', 'item_ids', 'category_ids']).execute();
  for (const o of offers) {
    const item_ids = o.item_ids.filter((x) => items.has(x));
    const category_ids = o.category_ids.filter((x) => categories.has(x));
    const changed = item_ids.length !== o.item_ids.length || category_ids.length !== o.category_ids.length;
    if (changed && item_ids.length + category_ids.length > 0) await db.updateTable('offers').set({ item_ids, category_ids }).where('id', '=', o.id).execute();
  }
  const stations: { id: string; category_ids: string[] }[] = await db.selectFrom('kitchen_stations').select(['id', 'category_ids']).execute();
  for (const s of stations) {
    const category_ids = s.category_ids.filter((x) => categories.has(x));
    if (category_ids.length !== s.category_ids.length) await db.updateTable('kitchen_stations').set({ category_ids }).where('id', '=', s.id).execute();
  }
}

/** Nothing to restore: the ids named records that no longer exist. */
export async function down(): Promise<void> {}
