import type { TenantDb, TenantTx } from '@pos/db';
import { errors } from '@pos/kernel';
import { stockShortfalls, type StockLevel, type StockShortfall } from '@pos/domain/catalog/stock';

/**
 * What customer channels (kiosk, online, table QR) may still sell of a location's tracked items: the
 * stock level less what other open checkouts hold (`stock_reservations`). A quote checks it; the order's
 * own transaction checks it again under the levels' row locks and reserves what it sells, so two
 * checkouts cannot both take the last unit. The register does not use it (see the domain rule).
 */

/** How long a checkout holds its stock without paying (a kiosk's terminal session, a hosted checkout page). */
export const RESERVATION_MS = 15 * 60_000;

/** Payment statuses of an order still being paid: its reservation counts. */
const OPEN_STATUSES = ['Pending', 'Awaiting Payment', 'Awaiting Capture', 'Awaiting Invoice'] as const;

export interface StockLine {
  readonly item_id: string;
  readonly qty: number;
  /** Shown in the refusal (`Croissant is sold out.`). */
  readonly name: string;
}

/** A 422 `insufficient_stock` naming each short item on the first line asking for it. */
function stockRefusal(short: readonly StockShortfall[], lines: readonly StockLine[]): never {
  const problems: Record<string, string[]> = {};
  for (const s of short) {
    const name = lines[s.lineIndex]!.name;
    if (s.left === 0) problems[`lines.${s.lineIndex}.item_id`] = [`${name} is sold out.`];
    else problems[`lines.${s.lineIndex}.qty`] = [`Only ${s.left} of ${name} left.`];
  }
  throw errors.businessRule(Object.values(problems)[0]![0]!, { reason: 'insufficient_stock', errors: problems });
}

/**
 * The levels of the basket's tracked items at the location, less other open checkouts' holds; with
 * `forUpdate` the level rows stay locked until the caller's transaction ends (always in item order, as
 * the capture takes them, so two of them never wait on each other).
 */
async function availableLevels(db: TenantDb | TenantTx, locationId: string, itemIds: readonly string[], now: Date, opts: { forUpdate: boolean; exceptTransactionId?: string }): Promise<Map<string, StockLevel>> {
  let q = db
    .selectFrom('items as i')
    .innerJoin('inventory_levels as l', (j) => j.onRef('l.item_id', '=', 'i.id').on('l.location_id', '=', locationId))
    .select(['i.id', 'i.allow_negative_stock', 'l.quantity'])
    .where('i.id', 'in', itemIds)
    .where('i.allow_negative_stock', '=', false)
    .orderBy('i.id');
  if (opts.forUpdate) q = q.forUpdate('l');
  const rows = await q.execute();
  if (rows.length === 0) return new Map();
  let held = db
    .selectFrom('stock_reservations as r')
    .innerJoin('transactions as t', 't.id', 'r.transaction_id')
    .select((eb) => ['r.item_id', eb.fn.sum<string>('r.qty').as('qty')])
    .where('r.location_id', '=', locationId)
    .where('r.item_id', 'in', rows.map((r) => r.id))
    .where('r.expires_at', '>', now)
    .where('t.status', 'in', OPEN_STATUSES)
    .groupBy('r.item_id');
  if (opts.exceptTransactionId) held = held.where('r.transaction_id', '<>', opts.exceptTransactionId);
  const holds = new Map((await held.execute()).map((h) => [h.item_id, Number(h.qty)]));
  return new Map(rows.map((r) => [r.id, { quantity: r.quantity - (holds.get(r.id) ?? 0), allowNegative: r.allow_negative_stock }]));
}

/** Refuses (422 `insufficient_stock`) a basket wanting more than the location can still sell; nothing is held. */
export async function checkStock(db: TenantDb, locationId: string, lines: readonly StockLine[], now: Date): Promise<void> {
  if (lines.length === 0) return;
  const levels = await availableLevels(db, locationId, [...new Set(lines.map((l) => l.item_id))], now, { forUpdate: false });
  const short = stockShortfalls(lines, levels);
  if (short.length > 0) stockRefusal(short, lines);
}

/**
 * Inside the transaction that writes the order: checks again under the levels' locks and holds the
 * tracked units for `RESERVATION_MS`. Answers whether anything was held (the order then names its
 * reservation as its cart session). Expired holds of these items are cleared on the way.
 */
export async function reserveStock(
  tx: TenantTx,
  order: { transactionId: string; locationId: string; lines: readonly StockLine[]; now: Date },
  /** The order's own hold is replaced (a retry): checked less what it held, then written afresh. */
  opts: { renew?: boolean } = {},
): Promise<boolean> {
  if (order.lines.length === 0) return false;
  const ids = [...new Set(order.lines.map((l) => l.item_id))].sort();
  const levels = await availableLevels(tx, order.locationId, ids, order.now, { forUpdate: true, ...(opts.renew ? { exceptTransactionId: order.transactionId } : {}) });
  if (levels.size === 0) return false;
  const short = stockShortfalls(order.lines, levels);
  if (short.length > 0) stockRefusal(short, order.lines);
  const tracked = [...levels.keys()];
  await tx.deleteFrom('stock_reservations').where('location_id', '=', order.locationId).where('item_id', 'in', tracked).where('expires_at', '<=', order.now).execute();
  if (opts.renew) await tx.deleteFrom('stock_reservations').where('transaction_id', '=', order.transactionId).execute();
  const qty = new Map<string, number>();
  for (const l of order.lines) if (levels.has(l.item_id)) qty.set(l.item_id, (qty.get(l.item_id) ?? 0) + l.qty);
  const expires = new Date(order.now.getTime() + RESERVATION_MS);
  await tx
    .insertInto('stock_reservations')
    .values([...qty].map(([item_id, n]) => ({ transaction_id: order.transactionId, item_id, location_id: order.locationId, qty: n, expires_at: expires })))
    .execute();
  return true;
}

/**
 * `reserveStock` for an order just written in `tx`: when it holds anything, the order names the hold
 * as its cart session (`cart_session_id`, its own id), which queues the release after its capture.
 */
export async function holdOrderStock(tx: TenantTx, order: { transactionId: string; locationId: string; lines: readonly StockLine[]; now: Date }): Promise<boolean> {
  const held = await reserveStock(tx, order);
  if (held) await tx.updateTable('transactions').set({ cart_session_id: order.transactionId }).where('id', '=', order.transactionId).execute();
  return held;
}

/** Whether any of these items is tracked at the location (an order of them would hold stock). */
export async function tracksStock(db: TenantDb, locationId: string, itemIds: readonly string[]): Promise<boolean> {
  if (itemIds.length === 0) return false;
  const row = await db
    .selectFrom('items as i')
    .innerJoin('inventory_levels as l', (j) => j.onRef('l.item_id', '=', 'i.id').on('l.location_id', '=', locationId))
    .select('i.id')
    .where('i.id', 'in', [...new Set(itemIds)])
    .where('i.allow_negative_stock', '=', false)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * A retried payment of an order keeps its hold for another `RESERVATION_MS`, while the hold still counts:
 * a hold that ran out, or whose order's payment failed, is not revived here (others may have the units
 * now); `renewOrderHold` takes it again, checked, when the retry starts a new payment.
 */
export async function extendReservation(db: TenantDb, transactionId: string, now: Date): Promise<void> {
  await db
    .updateTable('stock_reservations')
    .set({ expires_at: new Date(now.getTime() + RESERVATION_MS) })
    .where('transaction_id', '=', transactionId)
    .where('expires_at', '>', now)
    .where((eb) => eb.exists(eb.selectFrom('transactions as t').select('t.id').where('t.id', '=', transactionId).where('t.status', 'in', OPEN_STATUSES)))
    .execute();
}

/**
 * In the transaction that opens an order's payment again (a retry after a failed payment, or after its
 * hold ran out): its hold is taken again like a new order's, under the levels' locks and less what the
 * order itself held. 422 `insufficient_stock` when another checkout has the units now; the caller's
 * transaction then rolls back and the order stays as it was. Nothing to do for an open order that never
 * held stock (`holdsStock`: it names a cart session) or whose hold still counts. A hold that ran out may
 * be gone altogether (another checkout clears the expired holds of its items), so it is the live hold
 * that is looked for, not the lapsed one.
 */
export async function renewOrderHold(tx: TenantTx, order: { transactionId: string; locationId: string; status: string; holdsStock: boolean; now: Date }): Promise<void> {
  const open = (OPEN_STATUSES as readonly string[]).includes(order.status);
  if (open) {
    if (!order.holdsStock) return;
    const live = await tx.selectFrom('stock_reservations').select('item_id').where('transaction_id', '=', order.transactionId).where('expires_at', '>', order.now).limit(1).executeTakeFirst();
    if (live) return;
  }
  const lines = await tx.selectFrom('transaction_lines').select(['item_id', 'qty', 'name']).where('transaction_id', '=', order.transactionId).orderBy('position').execute();
  if (await reserveStock(tx, { transactionId: order.transactionId, locationId: order.locationId, lines, now: order.now }, { renew: true })) {
    await tx.updateTable('transactions').set({ cart_session_id: order.transactionId }).where('id', '=', order.transactionId).execute();
  }
}

/** Drops the holds of paid orders (their stock was taken at capture); answers how many rows each order had. */
export async function releaseReservations(db: TenantDb, transactionIds: readonly string[]): Promise<Map<string, number>> {
  if (transactionIds.length === 0) return new Map();
  const rows = await db.deleteFrom('stock_reservations').where('transaction_id', 'in', transactionIds).returning('transaction_id').execute();
  const counts = new Map<string, number>();
  for (const r of rows) counts.set(r.transaction_id, (counts.get(r.transaction_id) ?? 0) + 1);
  return counts;
}
