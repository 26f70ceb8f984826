import { MAX_TILL_CENTS } from '@pos/domain/tills/till-rules';
import type { SettleInput, TenderLegInput } from './types.ts';

/** One entry of the 422 `errors` map: a dot path (`tenders.1.amount`) and its text. */
export interface FieldError {
  readonly field: string;
  readonly message: string;
}

export type ParseSettleBodyResult =
  | { readonly ok: true; readonly input: SettleInput }
  | { readonly ok: false; readonly errors: readonly FieldError[] };

/** Most legs one settle body may hold; a real ticket has a handful, this only bounds the work. */
export const MAX_TENDER_LEGS = 20;

/** Longest issuer name accepted from a register. */
export const MAX_ISSUER_LENGTH = 100;

const CENTS_TEXT = 'must be a whole number of cents, 0 or more.';

/**
 * Largest amount one tender may carry: what a drawer may hold. A larger cash tender would put its
 * change (and the till's expected cash) beyond anything a drawer can count.
 */
export const MAX_TENDER_CENTS = MAX_TILL_CENTS;

/** The error text of a cents field, or null when the amount is acceptable. */
function centsProblem(name: string, value: unknown): string | null {
  if (!isCentsAmount(value)) return `${name} ${CENTS_TEXT}`;
  if (value > MAX_TENDER_CENTS) return `${name} may not be greater than ${MAX_TENDER_CENTS}.`;
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isCentsAmount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** The keys a leg may carry. `provider` is spec 2 rule 6's word for the issuer pick; `issuer` is its alias. */
const LEG_KEYS: ReadonlySet<string> = new Set(['method', 'funding', 'amount', 'amount_tendered', 'provider', 'issuer']);

const present = (v: unknown) => v !== undefined && v !== null;

/** Reads one leg, pushing its field errors; returns the leg only when it has none. */
function parseLeg(raw: unknown, index: number, errors: FieldError[]): TenderLegInput | undefined {
  const at = `tenders.${index}`;
  if (!isRecord(raw)) {
    errors.push({ field: at, message: 'Each payment must be an object.' });
    return undefined;
  }
  const before = errors.length;
  // Never drop what the operator sent: a key we do not read would be signed as if it were absent.
  for (const key of Object.keys(raw)) {
    if (!LEG_KEYS.has(key)) errors.push({ field: `${at}.${key.slice(0, 60)}`, message: `${key.slice(0, 60)} is not a payment field.` });
  }
  if (present(raw.provider) && present(raw.issuer)) {
    errors.push({ field: `${at}.issuer`, message: 'Send the issuer as provider only, not both provider and issuer.' });
  }
  const issuerKey = present(raw.provider) ? 'provider' : 'issuer';
  const { method, funding, amount, amount_tendered: tendered } = raw;
  const issuer = raw[issuerKey];
  if (typeof method !== 'string' || method.trim() === '') {
    errors.push({ field: `${at}.method`, message: 'method is required.' });
  }
  if (funding !== undefined && funding !== null && typeof funding !== 'string') {
    errors.push({ field: `${at}.funding`, message: 'funding must be debit or credit.' });
  }
  if (amount !== undefined && amount !== null) {
    const problem = centsProblem('amount', amount);
    if (problem) errors.push({ field: `${at}.amount`, message: problem });
    // A card or voucher of 0 pays nothing and would sign an empty line; only cash may be 0 (zero-total sale).
    else if (amount === 0 && method !== 'cash') errors.push({ field: `${at}.amount`, message: 'amount must be more than 0.' });
  }
  const tenderedProblem = tendered !== undefined && tendered !== null ? centsProblem('amount_tendered', tendered) : null;
  if (tenderedProblem) errors.push({ field: `${at}.amount_tendered`, message: tenderedProblem });
  if (present(issuer) && (typeof issuer !== 'string' || issuer.length > MAX_ISSUER_LENGTH)) {
    errors.push({ field: `${at}.${issuerKey}`, message: `${issuerKey} must be text of at most ${MAX_ISSUER_LENGTH} characters.` });
  }
  if (errors.length > before || typeof method !== 'string') return undefined;
  return {
    method,
    ...(typeof funding === 'string' ? { funding } : {}),
    ...(isCentsAmount(amount) ? { amount } : {}),
    ...(isCentsAmount(tendered) ? { amount_tendered: tendered } : {}),
    ...(typeof issuer === 'string' ? { issuer, ...(issuerKey === 'provider' ? { issuer_key: issuerKey } : {}) } : {}),
  };
}

/**
 * Turns a settle request body into a SettleInput, or every field error found (422). Shapes only:
 * the tender rules (methods enabled, totals, issuers) are `settle`'s. A `null` key counts as absent;
 * an unknown leg key is a field error (a settle never signs something other than what was asked).
 * The body is either legacy `{amount_tendered}` or `{tenders:[...]}` with 1..MAX_TENDER_LEGS legs;
 * sending both is refused rather than guessing which one the register meant.
 */
export function parseSettleBody(raw: unknown): ParseSettleBodyResult {
  if (!isRecord(raw)) return { ok: false, errors: [{ field: 'body', message: 'The body must be a JSON object.' }] };
  const tenders = raw.tenders ?? undefined;
  const tendered = raw.amount_tendered ?? undefined;

  if (tenders === undefined) {
    if (tendered === undefined) {
      return { ok: false, errors: [{ field: 'tenders', message: 'Send amount_tendered, or tenders with at least one payment.' }] };
    }
    const problem = centsProblem('amount_tendered', tendered);
    if (problem || !isCentsAmount(tendered)) return { ok: false, errors: [{ field: 'amount_tendered', message: problem! }] };
    return { ok: true, input: { kind: 'legacy', amount_tendered: tendered } };
  }

  if (tendered !== undefined) {
    return { ok: false, errors: [{ field: 'amount_tendered', message: 'Send either amount_tendered or tenders, not both.' }] };
  }
  if (!Array.isArray(tenders)) return { ok: false, errors: [{ field: 'tenders', message: 'tenders must be a list of payments.' }] };
  if (tenders.length === 0) return { ok: false, errors: [{ field: 'tenders', message: 'tenders must hold at least one payment.' }] };
  if (tenders.length > MAX_TENDER_LEGS) {
    return { ok: false, errors: [{ field: 'tenders', message: `tenders can hold at most ${MAX_TENDER_LEGS} payments.` }] };
  }

  const errors: FieldError[] = [];
  const legs: TenderLegInput[] = [];
  for (const [index, leg] of tenders.entries()) {
    const parsed = parseLeg(leg, index, errors);
    if (parsed !== undefined) legs.push(parsed);
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, input: { kind: 'multi', tenders: legs } };
}
