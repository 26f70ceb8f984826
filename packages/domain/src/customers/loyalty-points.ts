import type { Cents } from '../money.ts';

/**
 * Points earned on a paid order: `points_per_euro` for every whole euro of the amount paid for the
 * goods (total minus tip; a free order earns nothing). Rounded down so a refund never owes a fraction.
 */
export function pointsEarned(total: Cents, tip: Cents, pointsPerEuro: number): number {
  if (!Number.isSafeInteger(total) || !Number.isSafeInteger(tip) || !Number.isInteger(pointsPerEuro) || pointsPerEuro < 0) throw new RangeError('Invalid amounts');
  const goods = Math.max(0, total - Math.max(0, tip));
  return Math.floor(goods / 100) * pointsPerEuro;
}
