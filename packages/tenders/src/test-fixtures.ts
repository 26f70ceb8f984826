import type { PosTenders } from './types.ts';

/** The demo location's configuration (CONTRACTS.md section 1). Test-only. */
export const DEMO_TENDERS: PosTenders = {
  enabled: ['card', 'meal_voucher', 'gift_voucher'],
  issuers: {
    card_debit: ['Bancontact'],
    card_credit: ['Visa', 'Mastercard'],
    meal_voucher: ['Pluxee'],
    gift_voucher: [],
  },
};

/** An unconfigured location: cash only. Test-only. */
export const CASH_ONLY_TENDERS: PosTenders = {
  enabled: [],
  issuers: { card_debit: [], card_credit: [], meal_voucher: [], gift_voucher: [] },
};
