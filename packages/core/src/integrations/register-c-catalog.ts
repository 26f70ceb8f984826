import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { TenantDb } from '@pos/db';
import { catalogText, externalIdHoldable, itemPriceHoldable, itemVatRateHoldable } from '@pos/domain';
import { toCents, type RegisterCClient } from '@pos/providers/register-c/register-c-client';
import { refreshPublished } from '../catalog/published/published-catalog.ts';

/**
 * register-c items against our catalog at one of our locations (the engine of the sync and of the
 * menu suggestion). The external reference is the register-c sku, remembered per location in
 * `register_c_item_links`; an unlinked sku first matches one of our items with that sku sold at the
 * location, so an existing catalog is linked rather than duplicated.
 * - to_add: register-c items with no item here;
 * - to_update: linked (or sku-matched, not yet linked) items whose name or price differ, or that
 *   were hidden, or that still need their link;
 * - missing: visible linked items whose sku register-c no longer has (applying hides them; our own
 *   unlinked items are never touched).
 */
export interface RegisterCSourceItem {
  readonly sku: string;
  readonly name: string;
  readonly price_cents: number;
  readonly vat_rate: number;
}

export interface RegisterCMenuDiff {
  to_add: { sku: string; name: string; price_cents: number; vat_rate: number }[];
  to_update: { item_id: string; sku: string; name: string; price_cents: number; current_name: string; current_price_cents: number; linked: boolean }[];
  missing: { item_id: string; sku: string; name: string }[];
}

export interface RegisterCApplyCounts {
  created: number;
  updated: number;
  hidden: number;
  /** register-c items left as a suggestion (register-c is not this location's menu source). */
  suggested: number;
}

/**
 * register-c's items of a location with their VAT rate (percent, from the tax rate they carry). An item
 * our catalog cannot hold as sent (a negative or 32-bit-overflowing price, a VAT rate that is not a whole
 * percent, a sku that is empty, over 200 characters or carries control characters) is left out, as is a
 * second item with a sku already seen (a sku links one item); names lose their control characters.
 */
export async function registerCSourceItems(client: RegisterCClient, registerCLocationId: string): Promise<RegisterCSourceItem[]> {
  const [items, rates] = await Promise.all([client.items(registerCLocationId), client.taxRates(registerCLocationId)]);
  const rate = new Map(rates.map((r) => [r.id, toCents(r.rate) / 100]));
  const out: RegisterCSourceItem[] = [];
  const seen = new Set<string>();
  for (const i of items) {
    const price = toCents(i.price);
    const vat = rate.get(i.taxRateId) ?? 0;
    if (seen.has(i.sku) || !externalIdHoldable(i.sku) || !itemPriceHoldable(price) || !itemVatRateHoldable(vat)) continue;
    seen.add(i.sku);
    out.push({ sku: i.sku, name: catalogText(i.name, 255) || i.sku, price_cents: price, vat_rate: vat });
  }
  return out;
}

export async function registerCMenuDiff(tdb: TenantDb, locationId: string, source: readonly RegisterCSourceItem[]): Promise<RegisterCMenuDiff> {
  const links = await tdb
    .selectFrom('register_c_item_links as l')
    .innerJoin('items as i', 'i.id', 'l.item_id')
    .select(['l.sku', 'i.id', 'i.name', 'i.unit_price', 'i.visible'])
    .where('l.location_id', '=', locationId)
    .execute();
  const bySku = new Map(links.map((l) => [l.sku, l]));
  const unlinked = source.filter((s) => !bySku.has(s.sku)).map((s) => s.sku);
  const linkedIds = links.map((l) => l.id);
  const candidates = unlinked.length
    ? await tdb
        .selectFrom('items')
        .select(['id', 'name', 'unit_price', 'sku'])
        .where('sku', 'in', unlinked)
        .where((eb) => eb.or([eb('location_ids', 'is', null), sql<boolean>`${locationId}::uuid = any(location_ids)`]))
        .$if(linkedIds.length > 0, (q) => q.where('id', 'not in', linkedIds))
        .orderBy('name')
        .orderBy('id')
        .execute()
    : [];
  const diff: RegisterCMenuDiff = { to_add: [], to_update: [], missing: [] };
  const taken = new Set<string>();
  for (const s of [...source].sort((a, b) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : 0))) {
    const linked = bySku.get(s.sku);
    if (linked) {
      if (linked.name !== s.name || linked.unit_price !== s.price_cents || !linked.visible)
        diff.to_update.push({ item_id: linked.id, sku: s.sku, name: s.name, price_cents: s.price_cents, current_name: linked.name, current_price_cents: linked.unit_price, linked: true });
      continue;
    }
    const match = candidates.find((c) => c.sku === s.sku && !taken.has(c.id));
    if (match) {
      taken.add(match.id);
      diff.to_update.push({ item_id: match.id, sku: s.sku, name: s.name, price_cents: s.price_cents, current_name: match.name, current_price_cents: match.unit_price, linked: false });
    } else diff.to_add.push({ sku: s.sku, name: s.name, price_cents: s.price_cents, vat_rate: s.vat_rate });
  }
  const skus = new Set(source.map((s) => s.sku));
  for (const l of [...links].sort((a, b) => (a.sku < b.sku ? -1 : 1))) if (!skus.has(l.sku) && l.visible) diff.missing.push({ item_id: l.id, sku: l.sku, name: l.name });
  return diff;
}

/** A stable digest of a diff: a dismissal holds until register-c or our catalog changes it. */
export function menuDiffDigest(diff: RegisterCMenuDiff): string {
  return createHash('sha256').update(JSON.stringify(diff)).digest('hex');
}

/** Applies a diff in one transaction; `create` false leaves to_add as a suggestion. */
export async function applyRegisterCMenuDiff(tdb: TenantDb, locationId: string, diff: RegisterCMenuDiff, opts: { create: boolean; now: Date }): Promise<RegisterCApplyCounts> {
  const { now } = opts;
  return tdb.transaction().execute(async (tx) => {
    // One apply per location at a time (a sync and an adopt, two adopts): both computed the same diff
    // before either wrote, and each created the new skus' items (duplicates, left unlinked). The second
    // now skips what the first linked meanwhile.
    await sql`select pg_advisory_xact_lock(hashtextextended(${`register-c-catalog:${locationId}`}, 0))`.execute(tx);
    const linkedNow = diff.to_add.length
      ? new Set((await tx.selectFrom('register_c_item_links').select('sku').where('location_id', '=', locationId).where('sku', 'in', diff.to_add.map((a) => a.sku)).execute()).map((l) => l.sku))
      : new Set<string>();
    const toAdd = diff.to_add.filter((a) => !linkedNow.has(a.sku));
    const link = (sku: string, itemId: string) =>
      tx
        .insertInto('register_c_item_links')
        .values({ location_id: locationId, sku, item_id: itemId, created_at: now, updated_at: now })
        .onConflict((oc) => oc.columns(['location_id', 'sku']).doUpdateSet({ item_id: itemId, updated_at: now }))
        .execute();
    for (const u of diff.to_update) {
      await tx.updateTable('items').set({ name: u.name, unit_price: u.price_cents, visible: true, updated_at: now }).where('id', '=', u.item_id).execute();
      await link(u.sku, u.item_id);
    }
    if (opts.create) {
      for (const a of toAdd) {
        const id = Bun.randomUUIDv7();
        await tx.insertInto('items').values({ id, name: a.name, unit_price: a.price_cents, vat_rate: a.vat_rate, category: null, sku: a.sku, location_ids: [locationId], created_at: now, updated_at: now }).execute();
        await link(a.sku, id);
      }
    }
    if (diff.missing.length) await tx.updateTable('items').set({ visible: false, updated_at: now }).where('id', 'in', diff.missing.map((m) => m.item_id)).execute();
    // The menus the channels read show the new prices and hide what the register dropped, as an edit in
    // the back office does (the channels' cached copy follows within its minute).
    await refreshPublished(tx as unknown as TenantDb, [...diff.to_update.map((u) => u.item_id), ...diff.missing.map((m) => m.item_id)]);
    return { created: opts.create ? toAdd.length : 0, updated: diff.to_update.length, hidden: diff.missing.length, suggested: opts.create ? 0 : diff.to_add.length };
  });
}
