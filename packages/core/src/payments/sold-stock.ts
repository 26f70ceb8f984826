import { sql } from 'kysely';
import type { TenantDb, TenantTx } from '@pos/db';

/**
 * Stock of the tracked items (a level row at the location) a captured order sold: down by each line's
 * quantity at the capture, back up when its marketplace cancels it after paying (no sale then, as the
 * reports count it). Also below zero: a paid sale happened. In item order, as a checkout's stock hold
 * locks them, so the two never wait on each other; a `sale` history entry per line (a return is a
 * positive one, so a day's `sale` movement nets it out). Answers whether any level changed.
 */
export async function moveSoldStock(
  tx: TenantDb | TenantTx,
  order: { location_id: string; lines: readonly { item_id: string; qty: number }[] },
  direction: 'sold' | 'returned',
  note: string,
  now: Date,
): Promise<boolean> {
  let changed = false;
  for (const l of [...order.lines].sort((x, y) => (x.item_id < y.item_id ? -1 : x.item_id > y.item_id ? 1 : 0))) {
    const delta = direction === 'sold' ? -l.qty : l.qty;
    const level = await (tx as TenantDb)
      .updateTable('inventory_levels')
      .set({ quantity: sql`quantity + ${delta}`, updated_at: now })
      .where('item_id', '=', l.item_id)
      .where('location_id', '=', order.location_id)
      .returning('quantity')
      .executeTakeFirst();
    if (!level) continue;
    changed = true;
    await (tx as TenantDb)
      .insertInto('inventory_history')
      .values({ id: Bun.randomUUIDv7(), item_id: l.item_id, location_id: order.location_id, type: 'sale', quantity_change: delta, quantity_after: level.quantity, note, user_id: null })
      .execute();
  }
  return changed;
}
