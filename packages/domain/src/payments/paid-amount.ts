/**
 * Whether a provider's report of a payment (integer cents) covers an order's total: the amount plus a
 * tip reported beside it (a sale may send the tip apart, a terminal may add one), neither negative.
 * A report for less is not this order's payment: webhooks that carry amounts never capture on it.
 */
export function coversTotal(amount: number | null, tip: number | null, total: number): boolean {
  if (amount === null || amount < 0 || (tip !== null && tip < 0)) return false;
  return amount + (tip ?? 0) >= total;
}
