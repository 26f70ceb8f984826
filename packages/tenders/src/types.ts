import type { Cents } from '@pos/domain/money';

/** Tender methods a register can take; cash is always enabled. */
export type TenderMethod = 'cash' | 'card' | 'meal_voucher' | 'gift_voucher';
export type CardFunding = 'debit' | 'credit';
/** Payment types as signed by the fiscal data module. */
export type SignedPaymentType = 'CASH' | 'CARD_DEBIT' | 'CARD_CREDIT' | 'CHEQUE_MEAL' | 'VOUCHER_STORE';

/** Location tender configuration (`pos_tenders`), normalised. */
export interface PosTenders {
  readonly enabled: readonly Exclude<TenderMethod, 'cash'>[];
  readonly issuers: {
    readonly card_debit: readonly string[];
    readonly card_credit: readonly string[];
    readonly meal_voucher: readonly string[];
    readonly gift_voucher: readonly string[];
  };
}

/** The instruments a location lists issuers for (keys of `pos_tenders.issuers`). */
export type IssuerInstrument = keyof PosTenders['issuers'];

/** One leg as the register sends it (multi-tender body). */
export interface TenderLegInput {
  readonly method: string;
  readonly funding?: string | null;
  readonly amount?: number | null;
  readonly amount_tendered?: number | null;
  readonly issuer?: string | null;
  /** The body key that named the issuer pick (`provider`, the spec's word, or the alias `issuer`), for refusal paths. Default `issuer`. */
  readonly issuer_key?: 'provider' | 'issuer';
}

/** Settle body: legacy `{amount_tendered}` (one cash leg) or `{tenders:[...]}`. */
export type SettleInput =
  | { readonly kind: 'legacy'; readonly amount_tendered: number }
  | { readonly kind: 'multi'; readonly tenders: readonly TenderLegInput[] };

/** A frozen leg, in the order taken. `amount` is what the leg pays toward the sale (for cash: the rounded cash due). */
export type FrozenLeg =
  | { readonly kind: 'cash'; readonly amount: Cents; readonly tendered: Cents; readonly change: Cents; readonly rounding: Cents }
  | { readonly kind: 'card'; readonly funding: CardFunding; readonly amount: Cents; readonly issuer?: string }
  | { readonly kind: 'meal_voucher'; readonly amount: Cents; readonly issuer?: string }
  | { readonly kind: 'gift_voucher'; readonly amount: Cents; readonly issuer?: string };

/**
 * The tender record frozen at settlement. Invariant: sum(legs.amount) + rounding === total,
 * where rounding = raw cash due - rounded cash due (0 when there is no cash or no rounding).
 */
export interface FrozenTender {
  readonly total: Cents;
  readonly legs: readonly FrozenLeg[];
  readonly rounding: Cents;
  readonly amount_tendered?: Cents;
  readonly change?: Cents;
}

/** A signed payment line (fiscal `financials[]` entry), built only from a FrozenTender. */
export interface PaymentLine {
  readonly type: SignedPaymentType;
  readonly amountType: 'PAYMENT' | 'ROUNDING';
  readonly amount: Cents;
  readonly inputMethod: 'MANUAL' | 'AUTOMATIC';
  readonly provider?: string;
}

/**
 * Stable refusal codes; each maps to one verbatim message of spec 2 rule 7 (see TENDER_MESSAGES).
 * `card_overpays` is the project's addition: the spec words no message for a card paying more than is due.
 */
export type TenderRefusalCode =
  | 'method_not_enabled'
  | 'not_covered'
  | 'voucher_overpays'
  | 'card_overpays'
  | 'cash_not_needed'
  | 'cash_short'
  | 'card_funding_missing'
  | 'multiple_cash_legs'
  | 'issuer_not_configured'
  | 'negative_total';

export type SettleResult =
  | { readonly ok: true; readonly tender: FrozenTender }
  | { readonly ok: false; readonly code: TenderRefusalCode; readonly message: string; readonly field?: string };
