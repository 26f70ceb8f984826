import type { FrozenLeg, FrozenTender, PaymentLine, SignedPaymentType } from './types.ts';

/** The signed payment type of a frozen leg (spec 2 tenders table). */
export function signedPaymentType(leg: FrozenLeg): SignedPaymentType {
  switch (leg.kind) {
    case 'cash':
      return 'CASH';
    case 'card':
      return leg.funding === 'debit' ? 'CARD_DEBIT' : 'CARD_CREDIT';
    case 'meal_voucher':
      return 'CHEQUE_MEAL';
    case 'gift_voucher':
      return 'VOUCHER_STORE';
  }
}

/**
 * The signed payment lines (fiscal `financials[]`) of a frozen tender, built from it alone and in
 * the order taken (spec 2 tenders rules 2, 4, 5). Every payment is keyed in by the operator, so
 * PAYMENT lines are MANUAL; the ROUNDING line right after the cash line is AUTOMATIC because the
 * system computes it. Its amount is raw minus rounded cash (negative when rounded up), so the
 * lines always add up to the sale total.
 */
export function paymentLines(tender: FrozenTender): PaymentLine[] {
  const lines: PaymentLine[] = [];
  for (const leg of tender.legs) {
    const type = signedPaymentType(leg);
    if (leg.kind === 'cash') {
      lines.push({ type, amountType: 'PAYMENT', amount: leg.amount, inputMethod: 'MANUAL' });
      if (tender.rounding !== 0) {
        lines.push({ type: 'CASH', amountType: 'ROUNDING', amount: tender.rounding, inputMethod: 'AUTOMATIC' });
      }
      continue;
    }
    const line: PaymentLine = { type, amountType: 'PAYMENT', amount: leg.amount, inputMethod: 'MANUAL' };
    lines.push(leg.issuer === undefined ? line : { ...line, provider: leg.issuer });
  }
  return lines;
}
