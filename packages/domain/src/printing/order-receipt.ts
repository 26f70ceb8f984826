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
