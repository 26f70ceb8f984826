import type { Cents } from '../money.ts';

/** Report rows, in their fixed order (spec 2 "Tenders and settlement" rule 9). */
export const TENDER_ROWS = ['Cash', 'Card', 'Meal voucher', 'Gift voucher', 'Unknown'] as const;
export type TenderRowLabel = (typeof TENDER_ROWS)[number];

export type TenderLegKind = 'cash' | 'card' | 'meal_voucher' | 'gift_voucher';
const ROW_OF_KIND: Readonly<Record<TenderLegKind, TenderRowLabel>> = {
  cash: 'Cash',
  card: 'Card',
  meal_voucher: 'Meal voucher',
  gift_voucher: 'Gift voucher',
};

/** One row: `amount` in cents; `count` of legs counted in it (for Unknown: of sales). */
export interface TenderRow {
  readonly label: TenderRowLabel;
  readonly amount: Cents;
  readonly count: number;
}

/**
 * A settled sale as the report reads it. `tender` is the frozen tender record as it comes from the
 * database (jsonb, or its JSON text), shaped like @pos/tenders `FrozenTender`
 * (`{legs:[{kind, amount, ...}], rounding}`) but read defensively, so it is typed `unknown`.
 */
export interface TenderedSale {
  readonly total: Cents;
  readonly tender: unknown;
}

/** A leg the report can count. */
export interface CountedLeg {
  readonly kind: TenderLegKind;
  readonly amount: Cents;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isKind = (v: unknown): v is TenderLegKind => typeof v === 'string' && Object.hasOwn(ROW_OF_KIND, v);

/**
 * A sale's legs as the report counts them, or null when the sale belongs under Unknown:
 * - the tender is not an object (or JSON text of one), or `legs` is not an array;
 * - a leg is not an object, has a missing or unknown `kind`, or an `amount` that is not a
 *   non-negative integer;
 * - `rounding` (absent reads 0) is not an integer, or is non-zero without a cash leg;
 * - sum(legs) + rounding differs from the sale total.
 * The cash leg is returned at its amount + the sale's rounding: the frozen cash leg holds the
 * rounded cash due and `rounding` (raw cash due - rounded) is signed beside it, so adding it back
 * makes the rows of one sale add up to exactly the sale total (and a report's rows to its turnover).
 */
export function countedLegs(sale: TenderedSale): CountedLeg[] | null {
  let tender = sale.tender;
  if (typeof tender === 'string') {
    try {
      tender = JSON.parse(tender) as unknown;
    } catch {
      return null;
    }
  }
  if (!isObject(tender) || !Array.isArray(tender.legs)) return null;
  const rounding = tender.rounding ?? 0;
  if (typeof rounding !== 'number' || !Number.isSafeInteger(rounding)) return null;
  const legs: { kind: TenderLegKind; amount: Cents }[] = [];
  let sum = 0;
  for (const raw of tender.legs as unknown[]) {
    if (!isObject(raw) || !isKind(raw.kind)) return null;
    const amount = raw.amount;
    if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount < 0) return null;
    legs.push({ kind: raw.kind, amount });
    sum += amount;
  }
  if (sum + rounding !== sale.total) return null;
  if (rounding !== 0) {
    const cash = legs.find((l) => l.kind === 'cash');
    if (!cash) return null;
    cash.amount += rounding;
  }
  return legs;
}

/**
 * Sales per tender row, in cents, fed one sale at a time (a report over a year of sales reads them in
 * pages instead of holding them all); `salesByTender` is one over an array. The rules are
 * `salesByTender`'s.
 */
export class TenderTally {
  private readonly amount = new Map<TenderRowLabel, number>(TENDER_ROWS.map((r) => [r, 0]));
  private readonly count = new Map<TenderRowLabel, number>(TENDER_ROWS.map((r) => [r, 0]));

  add(sale: TenderedSale): void {
    if (!Number.isSafeInteger(sale.total)) throw new RangeError(`Sale total must be integer cents, got ${sale.total}`);
    const legs = countedLegs(sale);
    if (legs === null) this.addTo('Unknown', sale.total);
    else for (const leg of legs) this.addTo(ROW_OF_KIND[leg.kind], leg.amount);
  }

  rows(): TenderRow[] {
    return TENDER_ROWS.map((label) => ({ label, amount: this.amount.get(label) ?? 0, count: this.count.get(label) ?? 0 }));
  }

  private addTo(row: TenderRowLabel, cents: Cents): void {
    this.amount.set(row, (this.amount.get(row) ?? 0) + cents);
    this.count.set(row, (this.count.get(row) ?? 0) + 1);
  }
}

/**
 * Sales per tender row, in cents, always all five rows in the fixed order (zero rows kept, so
 * reports and receipts have a stable shape and a missing tender is visibly 0 rather than absent).
 * A split sale is counted per leg; a sale whose legs are malformed or do not add up puts its WHOLE
 * total under Unknown (see `countedLegs`). The rows always add up to the sum of the sale totals.
 * Throws RangeError when a sale total is not an integer of cents (totals come from our own orders).
 */
export function salesByTender(sales: readonly TenderedSale[]): TenderRow[] {
  const tally = new TenderTally();
  for (const sale of sales) tally.add(sale);
  return tally.rows();
}
