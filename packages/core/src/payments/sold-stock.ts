import { sql } from 'kysely';
import type { TenantDb, TenantTx } from '@pos/db';

/**
 * Stock of the tracked items (a level row at the location) a captured order sold: down by each line's
 * quantity at the capture, back up when its marketplace cancels it after paying (no sale then, as the
 * reports count it). Also below zero: a paid sale happened. In item order, as a checkout's stock hold
 * locks them, so the two never wait on each other; a `sale` history entry per line (a return is a
 * positive one, so a day's `sale` movement nets it out). Answers the lines that moved a level.
 */
export async function moveSoldStock(
  tx: TenantDb | TenantTx,
  order: { location_id: string; lines: readonly { item_id: string; qty: number }[] },
  direction: 'sold' | 'returned',
  note: string,
  now: Date,
): Promise<SoldStock[]> {
  const moved: SoldStock[] = [];
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
    moved.push({ item_id: l.item_id, qty: l.qty });
    await (tx as TenantDb)
      .insertInto('inventory_history')
      .values({ id: Bun.randomUUIDv7(), item_id: l.item_id, location_id: order.location_id, type: 'sale', quantity_change: delta, quantity_after: level.quantity, note, user_id: null })
      .execute();
  }
  return moved;
}

/** A line whose stock moved: the item and the quantity. */
export interface SoldStock {
  readonly item_id: string;
  readonly qty: number;
}

/** The capture step's detail naming the stock it took (null when none): `{"stock_sold":[{item_id, qty}]}`. */
export const stockSoldDetail = (sold: readonly SoldStock[]): string | null => (sold.length ? JSON.stringify({ stock_sold: sold }) : null);

/** The stock a capture took, from its step's detail (none for a capture that took none, or one recorded before it was named). */
export function stockSoldOf(detail: string | null | undefined): SoldStock[] {
  if (!detail) return [];
  try {
    const parsed = JSON.parse(detail) as { stock_sold?: unknown };
    return Array.isArray(parsed.stock_sold) ? (parsed.stock_sold as SoldStock[]).filter((l) => typeof l?.item_id === 'string' && Number.isSafeInteger(l.qty)) : [];
  } catch {
    return [];
  }
}
