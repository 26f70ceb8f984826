import { divRoundHalfUp, type Cents } from '../money.ts';
import { lineTotals, type OrderLine } from './line-totals.ts';

/** One VAT group of an order (CONTRACTS 5): `gross = net + vat`, integer cents, prices include VAT. */
export interface VatRateTotal {
  /** Whole percent (21, 12, 6, 0). */
  readonly rate: number;
  readonly net: Cents;
  readonly vat: Cents;
  readonly gross: Cents;
}

/**
 * Order totals, CONTRACTS 5, integer cents. `total = subtotal - discount` and is what the tender
 * legs must add up to; `total = sum(by_vat_rate.gross)`, `vat = sum(by_vat_rate.vat)`.
 */
export interface OrderTotals {
  readonly subtotal: Cents;
  readonly discount: Cents;
  readonly vat: Cents;
  readonly total: Cents;
  readonly by_vat_rate: readonly VatRateTotal[];
}

/**
 * The VAT inside a VAT-inclusive gross: `gross - round(gross * 100 / (100 + rate))`, round half up
 * (half away from zero for a negative gross, so a refund's VAT mirrors the sale's). Integer
 * arithmetic on the rate in hundredths of a percent, so 5.5 % works too.
 */
export function vatOfGross(gross: Cents, rate: number): Cents {
  assertRate(rate);
  const hundredths = Math.round(rate * 100);
  const net = divRoundHalfUp(gross * 10_000, 10_000 + hundredths);
  return gross - net;
}

function assertRate(rate: number): void {
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0 || rate > 100) {
    throw new RangeError(`Invalid VAT rate ${JSON.stringify(rate)}`);
  }
}

/** A VAT group from its gross: `vat` by `vatOfGross`, `net = gross - vat`. */
export function vatGroup(rate: number, gross: Cents): VatRateTotal {
  const vat = vatOfGross(gross, rate);
  return { rate, net: gross - vat, vat, gross };
}

/**
 * The server-side totals of an order (the client never computes them).
 *
 * - `subtotal` is the sum of line gross before discount; `discount` the sum of line discounts
 *   (both per unit, see `lineTotals`); `total = subtotal - discount`, never negative because a unit
 *   discount is capped at the unit.
 * - `by_vat_rate` groups each line's DISCOUNTED gross under its item's rate (`vatRateOf(item_id)`;
 *   modifiers carry the line's item rate), sorted by rate descending. Every rate present on a line
 *   appears, even when its gross is 0 (a fully discounted line); an order without lines has `[]`.
 * - VAT is computed PER RATE GROUP, on the group's gross, not per line: this is how the fiscal data
 *   module's `vatCalc` computes VAT per label (A 21 %, B 12 %, C 6 %, D 0 %) from the ticket's label
 *   totals, so the totals we show and the totals the module signs agree to the cent. Summing per-line
 *   VAT instead could drift by a cent per line.
 *
 * Throws RangeError for an invalid line (see `lineTotals`) or rate (negative, over 100, not finite).
 */
export function orderTotals(lines: readonly OrderLine[], vatRateOf: (item_id: string) => number): OrderTotals {
  let subtotal = 0;
  let discount = 0;
  const grossByRate = new Map<number, Cents>();
  for (const line of lines) {
    const t = lineTotals(line);
    subtotal += t.subtotal;
    discount += t.discount;
    const rate = vatRateOf(line.item_id);
    assertRate(rate);
    grossByRate.set(rate, (grossByRate.get(rate) ?? 0) + t.gross);
  }
  const by_vat_rate = [...grossByRate.entries()]
    .sort(([a], [b]) => b - a)
    .map(([rate, gross]) => vatGroup(rate, gross));
  const vat = by_vat_rate.reduce((s, g) => s + g.vat, 0);
  return { subtotal, discount, vat, total: subtotal - discount, by_vat_rate };
}
