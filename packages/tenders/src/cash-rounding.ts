import type { Cents } from '@pos/domain/money';

/** Cash shares below this are never rounded (spec 2, tenders rule 2). */
export const CASH_ROUNDING_FLOOR: Cents = 5;

/**
 * Rounds a cash share to 5 cents by the Belgian rule: endings 1-2 go down to 0, 3-4 up to 5,
 * 6-7 down to 5, 8-9 up to 10 (nearest multiple of 5). A share of 0-4 cents is returned unchanged.
 * @throws RangeError when `cents` is negative or not a whole number of cents.
 */
export function roundCash(cents: Cents): Cents {
  if (!Number.isSafeInteger(cents) || cents < 0) {
    throw new RangeError(`roundCash needs a non-negative whole number of cents, got ${cents}`);
  }
  if (cents < CASH_ROUNDING_FLOOR) return cents;
  const rest = cents % 5;
  // 1-2 round down, 3-4 round up: never a tie, so no tie-breaking rule is needed.
  return rest <= 2 ? cents - rest : cents + (5 - rest);
}
