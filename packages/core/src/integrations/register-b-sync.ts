import { sql } from 'kysely';
import type { CentralDb, TenantDb } from '@pos/db';
import { withWriteRetry } from '@pos/db';
import { catalogText, externalIdHoldable, itemPriceHoldable, itemVatRateHoldable } from '@pos/domain';
import { errors } from '@pos/kernel';
import type { RegisterBClient, RegisterBProduct } from '@pos/providers/register-b/register-b-client';
import { needClient } from './register-b-branches.ts';
import { logRegisterB, registerBFailure, requireRegisterB, type RegisterBScope } from './register-b-connection.ts';
import { refreshPublished } from '../catalog/published/published-catalog.ts';

/**
 * register-b is the register: its products are the source of truth, so the sync PULLS them. For every
 * mapped branch the branch's products are read; each product becomes (or updates) one catalog item,
 * found again by its external reference (tenant `register_b_items`: product id -> item id). The item is
 * offered at the mapped locations whose branch lists the product; a product no mapped branch lists any
 * more is hidden (never deleted: orders may name it). All provider reads happen before the one write
 * transaction, so a failing branch changes nothing. Without any mapping the sync refuses (422 `no_mappings`).
 */
export interface RegisterBSyncCounts {
  readonly branches: number;
  readonly products: number;
  readonly created: number;
  readonly updated: number;
  readonly unchanged: number;
  readonly hidden: number;
  /** Products our catalog cannot hold as register-b sends them (price, VAT rate or id out of range); a synced one is hidden. */
  readonly skipped: number;
}

export interface RegisterBSyncTarget {
  readonly merchantId: string;
  readonly connectionId: string;
  readonly accountId: string;
}

const ITEM_NAME_MAX = 200;

export async function runRegisterBSync(central: CentralDb, tdb: TenantDb, client: RegisterBClient, target: RegisterBSyncTarget, now: Date): Promise<RegisterBSyncCounts> {
  const mappings = await central.selectFrom('register_b_mappings').select(['location_id', 'branch_id']).where('merchant_id', '=', target.merchantId).where('connection_id', '=', target.connectionId).orderBy('branch_id').execute();
  // With nothing mapped every synced item would be hidden: refuse instead (final, not retried).
  if (mappings.length === 0) throw errors.businessRule('Map a location to a register-b branch before syncing.', { reason: 'no_mappings' });
  const products = new Map<string, { product: RegisterBProduct; locations: Set<string> }>();
  const skipped = new Set<string>();
  for (const m of mappings) {
    for (const p of await client.products(target.accountId, m.branch_id)) {
      if (!externalIdHoldable(p.id) || !itemPriceHoldable(p.price) || !itemVatRateHoldable(p.vat_rate)) {
        skipped.add(p.id);
        continue;
      }
      const entry = products.get(p.id) ?? { product: p, locations: new Set<string>() };
      entry.locations.add(m.location_id);
      products.set(p.id, entry);
    }
  }
  return withWriteRetry(() =>
    tdb.transaction().execute(async (tx) => {
      // One write of the connection's catalog at a time (a manual sync over a scheduled one): both read the
      // links before either wrote, so each created the new products' items, half of them left unlinked,
      // on sale for good. The second now reads the first's links.
      await sql`select pg_advisory_xact_lock(hashtextextended(${`register-b-sync:${target.connectionId}`}, 0))`.execute(tx);
      const links = new Map((await tx.selectFrom('register_b_items').select(['product_id', 'item_id']).execute()).map((l) => [l.product_id, l.item_id]));
      let created = 0;
      let updated = 0;
      let unchanged = 0;
      let hidden = 0;
      const changed: string[] = [];
      for (const [productId, { product, locations }] of products) {
        const values = {
          name: catalogText(product.name, ITEM_NAME_MAX) || productId,
          unit_price: product.price,
          vat_rate: product.vat_rate,
          sku: product.sku === null ? null : catalogText(product.sku, 100) || null,
          visible: product.active,
          location_ids: [...locations].sort(),
        };
        const itemId = links.get(productId);
        const current = itemId ? await tx.selectFrom('items').select(['name', 'unit_price', 'vat_rate', 'sku', 'visible', 'location_ids']).where('id', '=', itemId).executeTakeFirst() : undefined;
        if (!current) {
          const id = Bun.randomUUIDv7();
          await tx.insertInto('items').values({ id, category: null, created_at: now, updated_at: now, ...values }).execute();
          await tx
            .insertInto('register_b_items')
            .values({ product_id: productId, item_id: id, created_at: now, updated_at: now })
            .onConflict((oc) => oc.column('product_id').doUpdateSet({ item_id: id, updated_at: now }))
            .execute();
          created++;
          continue;
        }
        const same =
          current.name === values.name &&
          current.unit_price === values.unit_price &&
          Number(current.vat_rate) === values.vat_rate &&
          current.sku === values.sku &&
          current.visible === values.visible &&
          JSON.stringify([...(current.location_ids ?? [])].sort()) === JSON.stringify(values.location_ids);
        if (same) unchanged++;
        else {
          changed.push(itemId!);
          await tx.updateTable('items').set({ ...values, updated_at: now }).where('id', '=', itemId!).execute();
          await tx.updateTable('register_b_items').set({ updated_at: now }).where('product_id', '=', productId).execute();
          updated++;
        }
      }
      const gone = [...links.entries()].filter(([productId]) => !products.has(productId)).map(([, itemId]) => itemId);
      if (gone.length > 0) {
        const r = await tx.updateTable('items').set({ visible: false, updated_at: now }).where('id', 'in', gone).where('visible', '=', true).executeTakeFirst();
        hidden = Number(r.numUpdatedRows);
        changed.push(...gone);
      }
      // The menus the channels read show the new prices and hide what the register dropped, as an edit in
      // the back office does (the channels' cached copy follows within its minute).
      await refreshPublished(tx as unknown as TenantDb, changed);
      return { branches: mappings.length, products: products.size, created, updated, unchanged, hidden, skipped: [...skipped].filter((id) => !products.has(id)).length };
    }),
  );
}

/** `POST /start-sync`: the same sync now; its outcome is written to the connection's log (what `/diagnose` reads). */
export async function startRegisterBSync(scope: RegisterBScope, client: RegisterBClient | null): Promise<RegisterBSyncCounts> {
  const c = await requireRegisterB(scope);
  const api = needClient(client);
  try {
    const counts = await runRegisterBSync(scope.db, scope.tdb, api, { merchantId: scope.merchant.id, connectionId: c.connectionId, accountId: c.accountId }, scope.now);
    await logRegisterB(scope.db, scope, c, { kind: 'sync', type: 'manual_sync', detail: Object.entries(counts).map(([k, v]) => `${k}=${v}`).join(' ') }, scope.now);
    return counts;
  } catch (e) {
    await logRegisterB(scope.db, scope, c, { kind: 'sync', type: 'manual_sync', detail: e instanceof Error ? e.message : String(e), status: 'failed' }, scope.now);
    return registerBFailure(e);
  }
}

export interface LiveInventoryCounts {
  readonly branches: number;
  readonly levels: number;
  readonly updated: number;
  readonly unchanged: number;
  /** Stock lines of products that are not (yet) synced into the catalog. */
  readonly unknown: number;
}

/**
 * `POST /inventory/live-refresh`: register-b's stock of each mapped branch becomes our stock of the
 * synced item at the mapped location (a changed level is written with an inventory history `count`
 * entry, so stock stays the sum of its history). Only while live inventory is on (422 `live_inventory_off`).
 */
export async function refreshRegisterBInventory(scope: RegisterBScope, client: RegisterBClient | null): Promise<LiveInventoryCounts> {
  const c = await requireRegisterB(scope);
  if (!c.settings.live_inventory) throw errors.businessRule('Live inventory is off for register-b.', { reason: 'live_inventory_off' });
  const api = needClient(client);
  const mappings = await scope.db.selectFrom('register_b_mappings').select(['location_id', 'branch_id']).where('merchant_id', '=', scope.merchant.id).orderBy('branch_id').execute();
  const levels: { location_id: string; product_id: string; quantity: number }[] = [];
  for (const m of mappings) {
    let stock;
    try {
      stock = await api.stock(c.accountId, m.branch_id);
    } catch (e) {
      return registerBFailure(e);
    }
    for (const s of stock) levels.push({ location_id: m.location_id, product_id: s.product_id, quantity: s.quantity });
  }
  const counts = await withWriteRetry(() =>
    scope.tdb.transaction().execute(async (tx) => {
      const links = new Map((await tx.selectFrom('register_b_items').select(['product_id', 'item_id']).execute()).map((l) => [l.product_id, l.item_id]));
      let updated = 0;
      let unchanged = 0;
      let unknown = 0;
      for (const l of levels) {
        const itemId = links.get(l.product_id);
        if (!itemId) {
          unknown++;
          continue;
        }
        const quantity = Math.max(-1_000_000_000, Math.min(1_000_000_000, l.quantity));
        await tx.insertInto('inventory_levels').values({ item_id: itemId, location_id: l.location_id, quantity: 0, updated_at: scope.now }).onConflict((oc) => oc.columns(['item_id', 'location_id']).doNothing()).execute();
        const level = await tx.selectFrom('inventory_levels').select('quantity').where('item_id', '=', itemId).where('location_id', '=', l.location_id).forUpdate().executeTakeFirstOrThrow();
        if (level.quantity === quantity) {
          unchanged++;
          continue;
        }
        await tx.updateTable('inventory_levels').set({ quantity, updated_at: scope.now }).where('item_id', '=', itemId).where('location_id', '=', l.location_id).execute();
        await tx
          .insertInto('inventory_history')
          .values({ id: Bun.randomUUIDv7(), item_id: itemId, location_id: l.location_id, type: 'count', quantity_change: quantity - level.quantity, quantity_after: quantity, note: 'register-b live inventory', user_id: scope.userId, created_at: scope.now })
          .execute();
        updated++;
      }
      return { branches: mappings.length, levels: levels.length, updated, unchanged, unknown };
    }),
  );
  await logRegisterB(scope.db, scope, c, { type: 'live_inventory_refreshed', detail: `levels=${counts.levels} updated=${counts.updated}` }, scope.now);
  return counts;
}
