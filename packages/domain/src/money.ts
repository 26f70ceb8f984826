/** An amount of money in integer minor units (cents). Every amount in the platform is Cents except X/Z report values. */
export type Cents = number;

/** The largest amount an order can come to: the money columns are 32-bit integers of cents. */
export const MAX_ORDER_CENTS: Cents = 2_147_483_647;

/** The largest price the catalog holds for an item, a variant or a modifier: 100,000.00. */
export const MAX_CATALOG_PRICE: Cents = 10_000_000;

/** The largest tip a customer can add to an order (kiosk and online ordering). */
export const MAX_TIP_CENTS: Cents = 100_000;

/** True when `n` is a safe integer amount of cents. */
export function isCents(n: unknown): n is Cents {
  return typeof n === 'number' && Number.isSafeInteger(n);
}

/** Cents to decimal major units (X and Z reports, providers that want major units). */
export function toMajorUnits(c: Cents): number {
  return Math.round(c) / 100;
}

/** Decimal major units to cents, tolerant of float noise (32.1 -> 3210). */
export function fromMajorUnits(major: number): Cents {
  return Math.round(major * 100);
}

/** Alias of `toMajorUnits`: decimal major units for X and Z report values (1234 -> 12.34). */
export function toMajor(c: Cents): number {
  return toMajorUnits(c);
}

/**
 * Integer division rounded half up (half away from zero for a negative quotient, so
 * `divRoundHalfUp(-n, d) === -divRoundHalfUp(n, d)`). Both operands must be safe integers and `d > 0`;
 * the arithmetic stays in integers, so 0.5 cases never suffer float noise (`divRoundHalfUp(5, 10) === 1`).
 */
export function divRoundHalfUp(n: number, d: number): number {
  if (!Number.isSafeInteger(n) || !Number.isSafeInteger(d) || d <= 0) {
    throw new RangeError(`divRoundHalfUp needs safe integers and a positive divisor, got ${n} / ${d}`);
  }
  const sign = n < 0 ? -1 : 1;
  const a = Math.abs(n);
  const q = Math.floor(a / d);
  const r = a - q * d;
  const rounded = 2 * r >= d ? q + 1 : q;
  return sign * rounded || 0;
}
