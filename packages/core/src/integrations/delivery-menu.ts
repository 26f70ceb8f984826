import { sql } from 'kysely';
import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { isInStock } from '@pos/domain/catalog/stock';

/** What a marketplace menu push carries per item (delivery-a and delivery-b take the same shape). */
export interface DeliveryMenuItem {
  readonly id: string;
  readonly name: string;
  /** Minor units (cents), VAT included. */
  readonly price: number;
  readonly available: boolean;
}

/** The most items one menu push carries. */
export const MAX_DELIVERY_MENU_ITEMS = 5000;
export const MENU_TOO_LARGE = `The delivery menu has more than ${MAX_DELIVERY_MENU_ITEMS} items; a marketplace menu takes at most ${MAX_DELIVERY_MENU_ITEMS}.`;

/**
 * The location's sellable delivery items with availability (stock at the location, negative stock
 * allowed or not). A catalog beyond one push is a 422 on `menu`: cutting it short would answer success
 * while the items past the cut stay off the marketplace (and a register-d push removes them there).
 */
export async function deliveryMenuItems(tdb: TenantDb, locationId: string): Promise<DeliveryMenuItem[]> {
  const rows = await tdb
    .selectFrom('items as i')
    .leftJoin('inventory_levels as l', (j) => j.onRef('l.item_id', '=', 'i.id').on('l.location_id', '=', locationId))
    .select(['i.id', 'i.name', 'i.unit_price', 'i.allow_negative_stock', 'l.quantity'])
    .where('i.visible', '=', true)
    .where(sql<boolean>`'delivery' = any(i.channels)`)
    .where((eb) => eb.or([eb('i.location_ids', 'is', null), sql<boolean>`${locationId}::uuid = any(i.location_ids)`]))
    .orderBy('i.name')
    .orderBy('i.id')
    .limit(MAX_DELIVERY_MENU_ITEMS + 1)
    .execute();
  if (rows.length > MAX_DELIVERY_MENU_ITEMS) throw errors.field('menu', MENU_TOO_LARGE);
  return rows.map((r) => ({ id: r.id, name: r.name, price: r.unit_price, available: isInStock({ quantity: r.quantity, allowNegative: r.allow_negative_stock }) }));
}
