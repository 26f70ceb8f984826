import type { TenderRow } from './receipt-model.ts';

/**
 * The rows of a kiosk, online or marketplace order receipt between its lines and its TOTAL: the tip,
 * the fees, and whatever else is left between the lines and the total charged (an order discount not
 * spread on the lines: `Discount`; anything charged beyond them: `Other charges`), so the printed
 * lines always add up to the TOTAL. Cents.
 */
export function orderChargeRows(o: { linesTotal: number; tip: number; fees: number; total: number }): TenderRow[] {
  const rows: TenderRow[] = [];
  if (o.tip !== 0) rows.push({ label: 'Tip', amount: o.tip });
  if (o.fees !== 0) rows.push({ label: 'Fees', amount: o.fees });
  const rest = o.total - o.linesTotal - o.tip - o.fees;
  if (rest < 0) rows.push({ label: 'Discount', amount: rest });
  else if (rest > 0) rows.push({ label: 'Other charges', amount: rest });
  return rows;
}

/**
 * The tender line of a captured order: the card providers' orders were paid by card; a delivery
 * marketplace's order was paid to the marketplace (`Paid via delivery-a`), whatever the customer used there.
 */
export function orderTenderLabel(paymentProvider: string): string {
  return paymentProvider.startsWith('delivery-') ? `Paid via ${paymentProvider}` : 'Card';
}

/**
 * The tender rows of a captured order: its one tender line (`orderTenderLabel`), or none for a free
 * order (`is_free`): nothing was paid, though the kiosk's card provider is still stamped on it. As a
 * register sale of 0 settled without a leg, the receipt ends at its TOTAL.
 */
export function orderTenderRows(t: { payment_provider: string; total: number; is_free: boolean }): TenderRow[] {
  return t.is_free ? [] : [{ label: orderTenderLabel(t.payment_provider), amount: t.total }];
}
