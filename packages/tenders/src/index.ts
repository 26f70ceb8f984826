/**
 * Pure tender engine of the first-party register (spec 2, "Tenders and settlement" and
 * "Location tender configuration"): parse a settle body, settle legs into a frozen tender with
 * change and cash rounding, and build the signed payment lines from that frozen tender only.
 * No I/O; amounts are integer cents.
 *
 * Typical use: `normalisePosTenders(stored)` -> `parseSettleBody(json)` -> `settle(...)` ->
 * persist `tender` -> `paymentLines(tender)` for the fiscal ticket.
 */

/** Shapes shared with the fiscal package and the use cases. */
export type * from './types.ts';
/** Belgian 5-cent cash rounding. */
export { CASH_ROUNDING_FLOOR, roundCash } from './cash-rounding.ts';
/** Verbatim refusal texts per refusal code. */
export { TENDER_MESSAGES } from './refusal-messages.ts';
/** Issuer rule 6 (which issuer list applies, which issuer gets signed). */
export { issuerInstrument, resolveIssuer, type IssuerResolution } from './issuers.ts';
/** Settle a sale: legs -> frozen tender, or a refusal with code, message and field. */
export { settle, type SettleArgs } from './settle.ts';
/** Signed payment lines of a frozen tender. */
export { paymentLines, signedPaymentType } from './payment-lines.ts';
/** Normalise a location's `pos_tenders` block. */
export { CASH_ONLY, CONFIGURABLE_METHODS, ISSUER_INSTRUMENTS, normalisePosTenders } from './normalise-config.ts';
/** Settle body parsing into SettleInput or 422 field errors. */
export {
  MAX_ISSUER_LENGTH,
  MAX_TENDER_LEGS,
  parseSettleBody,
  type FieldError,
  type ParseSettleBodyResult,
} from './parse-settle-body.ts';
