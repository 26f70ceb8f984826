import type { Cents } from '@pos/domain/money';
import { roundCash } from './cash-rounding.ts';
import { issuerInstrument, resolveIssuer } from './issuers.ts';
import { TENDER_MESSAGES } from './refusal-messages.ts';
import type {
  CardFunding,
  FrozenLeg,
  FrozenTender,
  PosTenders,
  SettleInput,
  SettleResult,
  TenderLegInput,
  TenderRefusalCode,
} from './types.ts';

/** What `settle` needs: the server-computed sale total, the parsed body and the location's normalised tenders. */
export interface SettleArgs {
  readonly total: Cents;
  readonly body: SettleInput;
  readonly config: PosTenders;
}

/** A leg that passed the per-leg checks; `amount` is what the register stated, if anything. */
type CheckedLeg =
  | { readonly kind: 'cash'; readonly amount?: Cents; readonly tendered?: Cents }
  | { readonly kind: 'card'; readonly funding: CardFunding; readonly amount?: Cents; readonly issuer?: string }
  | { readonly kind: 'meal_voucher' | 'gift_voucher'; readonly amount?: Cents; readonly issuer?: string };

type CashLeg = Extract<CheckedLeg, { kind: 'cash' }>;
type Refusal = Extract<SettleResult, { ok: false }>;

function refuse(code: TenderRefusalCode, field?: string): Refusal {
  return field === undefined
    ? { ok: false, code, message: TENDER_MESSAGES[code] }
    : { ok: false, code, message: TENDER_MESSAGES[code], field };
}

/** Absent (undefined/null) or a non-negative whole number of cents; anything else is a caller bug (parse first). */
function optionalCents(value: number | null | undefined, what: string): Cents | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`settle: ${what} must be a non-negative whole number of cents, got ${value}`);
  }
  return value;
}

function withIssuer<T extends object>(leg: T, issuer: string | undefined): T & { issuer?: string } {
  return issuer === undefined ? leg : { ...leg, issuer };
}

/** Per-leg checks, in the order taken: method, single cash leg, card funding, issuer (rule 6). */
function checkLeg(
  leg: TenderLegInput,
  path: (key: string) => string,
  config: PosTenders,
  cashSeen: boolean,
): CheckedLeg | Refusal {
  const amount = optionalCents(leg.amount, path('amount'));
  const pick = leg.issuer;
  switch (leg.method) {
    case 'cash': {
      const tendered = optionalCents(leg.amount_tendered, path('amount_tendered'));
      if (cashSeen) return refuse('multiple_cash_legs', path('method'));
      // Cash has no issuer list, so no pick can be one the location set up.
      if (typeof pick === 'string' && pick.trim() !== '') return refuse('issuer_not_configured', path(leg.issuer_key ?? 'issuer'));
      return { kind: 'cash', ...(amount === undefined ? {} : { amount }), ...(tendered === undefined ? {} : { tendered }) };
    }
    case 'card': {
      if (!config.enabled.includes('card')) return refuse('method_not_enabled', path('method'));
      // No unknown-card type exists (rule 4): anything but debit/credit counts as not said.
      const funding = leg.funding;
      if (funding !== 'debit' && funding !== 'credit') return refuse('card_funding_missing', path('funding'));
      const issuer = resolveIssuer(config, issuerInstrument({ kind: 'card', funding }), pick);
      if (!issuer.ok) return refuse('issuer_not_configured', path(leg.issuer_key ?? 'issuer'));
      return withIssuer({ kind: 'card', funding, ...(amount === undefined ? {} : { amount }) }, issuer.issuer);
    }
    case 'meal_voucher':
    case 'gift_voucher': {
      const kind = leg.method;
      if (!config.enabled.includes(kind)) return refuse('method_not_enabled', path('method'));
      const issuer = resolveIssuer(config, issuerInstrument({ kind }), pick);
      if (!issuer.ok) return refuse('issuer_not_configured', path(leg.issuer_key ?? 'issuer'));
      return withIssuer({ kind, ...(amount === undefined ? {} : { amount }) }, issuer.issuer);
    }
    default:
      return refuse('method_not_enabled', path('method'));
  }
}

/**
 * Settles a sale (spec 2, "Tenders and settlement"). Pure: the same input always gives the same
 * frozen tender or the same refusal. Refusals come in this order: negative total; per-leg checks
 * (first failing leg wins); amounts, walked in the order taken; coverage; unneeded cash; cash tendered.
 *
 * Amount rules, walking the legs in order with `due` starting at the total:
 * - A card or voucher leg pays its `amount`, or, without one, everything still due at that point
 *   (so only the last paying leg can leave it out). It may not pay more than is still due, and a
 *   card or voucher taken when nothing is due any more is refused the same way: neither gives change,
 *   so a card is held to the voucher rule (`card_overpays`, the project's own message).
 * - A cash leg with `amount` takes that share at its place in the order (capped at what is still
 *   due: cash gives change, so an over-stated share only changes the change). Without `amount` it
 *   pays what remains after all the non-cash legs, wherever it stands.
 * - A cash leg left with nothing to pay beside card or voucher legs is refused (`cash_not_needed`);
 *   a cash leg of 0 is fine only on a zero-total sale with no other leg.
 * - Only the cash share is rounded (never one under 5 cents); cash tendered defaults to the rounded
 *   cash due (exact money) and may not be less than it.
 *
 * @throws RangeError when `total` or a leg amount is not a whole number of cents (parse the body first).
 */
export function settle({ total, body, config }: SettleArgs): SettleResult {
  if (!Number.isSafeInteger(total)) throw new RangeError(`settle: total must be whole cents, got ${total}`);
  if (total < 0) return refuse('negative_total');

  const inputs: readonly TenderLegInput[] =
    body.kind === 'legacy' ? [{ method: 'cash', amount_tendered: body.amount_tendered }] : body.tenders;
  // The legacy body has one field, so every refusal about its one leg points at it.
  const pathOf = (index: number) => (key: string) =>
    body.kind === 'legacy' ? 'amount_tendered' : `tenders.${index}.${key}`;
  const legPath = (index: number) => (body.kind === 'legacy' ? 'amount_tendered' : `tenders.${index}`);

  const legs: CheckedLeg[] = [];
  let cashIndex = -1;
  for (const [index, input] of inputs.entries()) {
    const checked = checkLeg(input, pathOf(index), config, cashIndex >= 0);
    if ('ok' in checked) return checked;
    if (checked.kind === 'cash') cashIndex = index;
    legs.push(checked);
  }

  // Amount each leg pays toward the sale; the cash entry is its raw (unrounded) share.
  const pays: Cents[] = [];
  let due = total;
  let nonCashSeen = false;
  for (const [index, leg] of legs.entries()) {
    if (leg.kind === 'cash') {
      if (leg.amount === undefined) {
        pays.push(0); // filled in once every non-cash leg is known
        continue;
      }
      if (due === 0 && nonCashSeen) return refuse('cash_not_needed', legPath(index));
      const share = Math.min(leg.amount, due);
      pays.push(share);
      due -= share;
      continue;
    }
    const amount = leg.amount ?? due;
    if (amount > due || due === 0) {
      return refuse(leg.kind === 'card' ? 'card_overpays' : 'voucher_overpays', pathOf(index)('amount'));
    }
    pays.push(amount);
    due -= amount;
    nonCashSeen = true;
  }

  const cash = legs.find((leg): leg is CashLeg => leg.kind === 'cash');
  if (cash !== undefined && cash.amount === undefined) {
    pays[cashIndex] = due;
    due = 0;
  }
  if (due > 0) return refuse('not_covered', body.kind === 'legacy' ? 'amount_tendered' : 'tenders');
  // Also catches a stated share of 0 that later legs made redundant (its tender would only be change).
  if (cash !== undefined && pays[cashIndex] === 0 && nonCashSeen) return refuse('cash_not_needed', legPath(cashIndex));

  const rawCash = cash === undefined ? 0 : (pays[cashIndex] ?? 0);
  const cashDue = roundCash(rawCash);
  const rounding = rawCash - cashDue;
  const tendered = cash?.tendered ?? cashDue;
  if (tendered < cashDue) return refuse('cash_short', pathOf(cashIndex)('amount_tendered'));
  const change = tendered - cashDue;

  const frozen: FrozenLeg[] = legs.map((leg, index): FrozenLeg => {
    const amount = pays[index] ?? 0;
    switch (leg.kind) {
      case 'cash':
        return { kind: 'cash', amount: cashDue, tendered, change, rounding };
      case 'card':
        return withIssuer({ kind: 'card', funding: leg.funding, amount }, leg.issuer);
      case 'meal_voucher':
      case 'gift_voucher':
        return withIssuer({ kind: leg.kind, amount }, leg.issuer);
    }
  });

  const tender: FrozenTender =
    cash !== undefined ? { total, legs: frozen, rounding, amount_tendered: tendered, change } : { total, legs: frozen, rounding };
  return { ok: true, tender };
}
