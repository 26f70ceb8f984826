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

/** Why a terminal payment report is not its order's sale (stored as the failed event's error). */
export type TerminalSaleMismatch = 'amount_mismatch' | 'tip_mismatch';

/**
 * What a terminal sale charged (integer cents), from the provider's report of it, checked against the
 * order. The sale sends `amount` (the order's total less its tip) and the tip chosen on the kiosk apart;
 * the terminal adds any tip the customer gives there on top. So `amount` must be exactly the sale's
 * amount (`amount_mismatch`: missing, negative, more or less), and `tip` (null is none; `undefined` a
 * reported tip that is not money) no less than the kiosk's tip (`tip_mismatch`: not money, negative,
 * short, or a charge past `MAX_ORDER_CENTS`). Then the customer was charged `amount + tip`.
 * `total - tip_amount` stays the sale's amount after a capture that booked a tip, so a late report is
 * checked the same way.
 */
export function terminalSaleCharge(amount: number | null, tip: number | null | undefined, order: { readonly total: number; readonly tip_amount: number }): { readonly charged: number; readonly tip: number } | TerminalSaleMismatch {
  if (amount === null || amount !== Number(order.total) - Number(order.tip_amount)) return 'amount_mismatch';
  const t = tip === null ? 0 : tip;
  if (t === undefined || t < 0 || t < Number(order.tip_amount) || amount + t > MAX_ORDER_CENTS) return 'tip_mismatch';
  return { charged: amount + t, tip: t };
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
