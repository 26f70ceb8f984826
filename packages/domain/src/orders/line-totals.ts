import { divRoundHalfUp, type Cents } from '../money.ts';

/** A modifier on an order line. `price` is per modifier unit (may be 0); `qty` defaults to 1 per line unit. */
export interface OrderModifier {
  readonly id?: string | null;
  readonly name?: string | null;
  readonly price: Cents;
  readonly qty?: number | null;
}

/**
 * A line discount, always PER UNIT (spec 2, "Order line"): `pct` is a whole percent 1-100 of the
 * effective unit price; `amount` is cents taken off each unit.
 */
export type LineDiscount =
  | { readonly type: 'pct'; readonly value: number }
  | { readonly type: 'amount'; readonly value: Cents };

/** An order line as the register sends it (the client's intent) and as it is stored. */
export interface OrderLine {
  readonly uuid: string;
  readonly item_id: string;
  /** Integer 1..999. */
  readonly qty: number;
  /** Cents, VAT included. */
  readonly unit_price: Cents;
  /** `catalog` for catalog prices. */
  readonly price_source: string;
  /** Absent is read as `[]`. */
  readonly modifiers?: readonly OrderModifier[] | null;
  readonly discount?: LineDiscount | null;
}

/** The money of one line, integer cents. `gross = subtotal - discount`. */
export interface LineTotals {
  /** unit_price + sum(modifier price * modifier qty). */
  readonly unit: Cents;
  /** Discount taken off each unit, 0..unit. */
  readonly unit_discount: Cents;
  /** unit * qty: the line before discount. */
  readonly subtotal: Cents;
  /** unit_discount * qty. */
  readonly discount: Cents;
  /** (unit - unit_discount) * qty: what the line costs, VAT included. */
  readonly gross: Cents;
}

/** The modifier quantity per line unit (absent or null is 1). */
export function modifierQty(m: OrderModifier): number {
  return m.qty ?? 1;
}

/** Effective unit price: the unit price plus every modifier's price times its quantity. */
export function effectiveUnitPrice(line: Pick<OrderLine, 'unit_price' | 'modifiers'>): Cents {
  let unit = line.unit_price;
  for (const m of line.modifiers ?? []) unit += m.price * modifierQty(m);
  return unit;
}

/**
 * The discount on one unit: `pct` is round-half-up(unit * value / 100); `amount` is capped at the
 * unit, so a unit never goes negative. No discount is 0.
 */
export function unitDiscount(unit: Cents, discount: LineDiscount | null | undefined): Cents {
  if (!discount) return 0;
  switch (discount.type) {
    case 'pct':
      return divRoundHalfUp(unit * discount.value, 100);
    case 'amount':
      return Math.min(discount.value, unit);
    default: {
      const never: never = discount;
      throw new TypeError(`Unknown discount type ${JSON.stringify(never)}`);
    }
  }
}

function assertNumbers(line: OrderLine): void {
  const bad = (what: string, v: unknown) => new RangeError(`Order line ${line.uuid}: invalid ${what} ${JSON.stringify(v)}`);
  if (!Number.isSafeInteger(line.qty) || line.qty < 1) throw bad('qty', line.qty);
  if (!Number.isSafeInteger(line.unit_price) || line.unit_price < 0) throw bad('unit_price', line.unit_price);
  for (const m of line.modifiers ?? []) {
    if (!Number.isSafeInteger(m.price) || m.price < 0) throw bad('modifier price', m.price);
    const q = modifierQty(m);
    if (!Number.isSafeInteger(q) || q < 1) throw bad('modifier qty', m.qty);
  }
  const d = line.discount;
  if (d) {
    if (d.type === 'pct' && !(Number.isInteger(d.value) && d.value >= 1 && d.value <= 100)) throw bad('discount', d);
    if (d.type === 'amount' && !(Number.isSafeInteger(d.value) && d.value >= 1)) throw bad('discount', d);
    if (d.type !== 'pct' && d.type !== 'amount') throw bad('discount', d);
  }
}

/**
 * The totals of one line. Discounts are per unit: the unit discount is computed once on the
 * effective unit and multiplied by qty (so 3 x 3.33 at 10 % is 3 x 0.33 = 0.99, never 1.00).
 * Throws RangeError for a line that `validateLines` would refuse (non-integer money, qty < 1, ...).
 */
export function lineTotals(line: OrderLine): LineTotals {
  assertNumbers(line);
  const unit = effectiveUnitPrice(line);
  const ud = unitDiscount(unit, line.discount);
  const subtotal = unit * line.qty;
  const discount = ud * line.qty;
  return { unit, unit_discount: ud, subtotal, discount, gross: subtotal - discount };
}
