import { MAX_ORDER_CENTS } from '../money.ts';

/**
 * Whether a provider's report of a payment (integer cents) covers an order's total: the amount plus a
 * tip reported beside it (a sale may send the tip apart, a terminal may add one), neither negative.
 * A report for less is not this order's payment: webhooks that carry amounts never capture on it.
 */
export function coversTotal(amount: number | null, tip: number | null, total: number): boolean {
  if (amount === null || amount < 0 || (tip !== null && tip < 0)) return false;
  return amount + (tip ?? 0) >= total;
}

/**
 * The totals a completing capture books from what the provider took (`captured`, integer cents, tip
 * included; spec 3: tip is a separate money field). More than the order's total is a tip the customer
 * added on the terminal: it goes to `tip_amount`, and `total` becomes what was taken. Null when
 * nothing changes: no amount reported, not whole cents, not more than the total (captures for less are
 * refused before this), or beyond the money columns (`MAX_ORDER_CENTS`; the excess is then left out).
 */
export function capturedTotals(order: { readonly total: number; readonly tip_amount: number }, captured: unknown): { total: number; tip_amount: number } | null {
  if (typeof captured !== 'number' || !Number.isSafeInteger(captured) || captured <= order.total || captured > MAX_ORDER_CENTS) return null;
  return { total: captured, tip_amount: order.tip_amount + (captured - order.total) };
}
