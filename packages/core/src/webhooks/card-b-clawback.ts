/**
 * What a card-b reversal claws back from one terminal payment's ledger entry (spec 3 "Card-b events"
 * rule 6), in cents (0 or more; its adjustment is the negation). Pure: the caller reads the entry and
 * its earlier reversals under the entry's row lock.
 */
export interface CardBClawbackInput {
  /** The entry's commission. */
  readonly commission: number;
  /** What the commission was computed on (`commission_ledger.base_amount`); null on entries written before it was kept. */
  readonly baseAmount: number | null;
  /** Given back so far by earlier reversals of the entry (0 or more). */
  readonly clawedBack: number;
  /** What earlier reversals of the entry reversed (the `base_amount` of their adjustments), in cents. */
  readonly reversedBefore: number;
  /** What this reversal gives back (tip included), or null when its event names no usable amount. */
  readonly reversedCents: number | null;
  /** The commission rate configured now (basis points): used only for an entry without `baseAmount`. */
  readonly currentBps: number;
}

export function cardBClawback(i: CardBClawbackInput): number {
  const remaining = i.commission - i.clawedBack;
  if (remaining <= 0) return 0;
  // No amount named: the whole of what is left (a full reversal).
  if (i.reversedCents === null || i.reversedCents <= 0) return remaining;
  const part =
    i.baseAmount !== null && i.baseAmount > 0
      ? // The entry's own share of everything reversed so far, less what was given back already: the
        // rate configured now never matters (changed between the sale and its refund, a full reversal
        // still gives back exactly what the sale earned), and partial reversals' roundings never add up
        // to more or less than the entry's share.
        Math.round((i.commission * Math.min(i.reversedBefore + i.reversedCents, i.baseAmount)) / i.baseAmount) - i.clawedBack
      : // An entry written before its base was kept: the rate now stands in for the one it was written
        // with (exact while the rate is unchanged).
        Math.round((i.reversedCents * i.currentBps) / 10_000);
  // All reversals together never give back more than the entry earned.
  return Math.max(0, Math.min(remaining, part));
}
