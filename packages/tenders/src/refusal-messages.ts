import type { TenderRefusalCode } from './types.ts';

/**
 * The text a register shows for each refusal, verbatim from spec 2 (tenders rule 7), except
 * `card_overpays`, which the spec does not word: it is the project's own sentence, built like the
 * voucher one, because a card gives no change either.
 */
export const TENDER_MESSAGES: Readonly<Record<TenderRefusalCode, string>> = {
  method_not_enabled: 'This register does not take this payment method.',
  not_covered: 'The payments do not cover the sale yet.',
  voucher_overpays: 'A voucher cannot pay more than the amount still due — it gives no change and is never rounded.',
  card_overpays: 'A card cannot pay more than the amount still due — it gives no change.',
  cash_not_needed: 'The other payments already settle this sale — remove the cash payment.',
  cash_short: 'Cash tendered is less than the cash still due.',
  card_funding_missing: 'Say whether the card was a debit card or a credit card.',
  multiple_cash_legs: 'Take all the cash as one payment.',
  issuer_not_configured: 'This issuer is not set up for this payment method at this location.',
  negative_total: 'A sale cannot have a negative total — use a refund.',
};
