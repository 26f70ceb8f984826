/** An amount of money in integer minor units (cents). Every amount in the platform is Cents except X/Z report values. */
export type Cents = number;

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
