import type { Cents } from '../money.ts';

/**
 * The discount a register order carries, so that the register's sale equals what was paid:
 * `sum(lines) + tip + service charge - discount = paid`.
 *
 * Line totals are what each line was sold for: our own offers are already taken off them (pricing:
 * `total = sum(lines.total) = subtotal - discount`), so the transaction's `discount` must not be
 * subtracted again. Only what the lines, tip and fees do not account for (a marketplace's promotion on
 * undiscounted lines, a rounding) is the discount. When the lines come to less than was paid, the
 * discount is 0: a difference is never sent as a higher payment.
 */
export function registerDiscount(a: { readonly lineTotals: readonly Cents[]; readonly tip: Cents; readonly fees: Cents; readonly paid: Cents }): Cents {
  const charged = a.lineTotals.reduce((s, t) => s + t, 0) + a.tip + a.fees;
  return Math.max(0, charged - a.paid);
}
