/** Belgian VAT labels as the fiscal data module knows them (X, out of scope, is not used here). */
export type VatLabel = 'A' | 'B' | 'C' | 'D';

const LABELS: ReadonlyMap<number, VatLabel> = new Map([
  [21, 'A'],
  [12, 'B'],
  [6, 'C'],
  [0, 'D'],
]);

/** VAT rate in whole percent, per label. */
export const VAT_RATES: Readonly<Record<VatLabel, number>> = { A: 21, B: 12, C: 6, D: 0 };

/**
 * The label for a VAT rate given in whole percent (21, 12, 6, 0). Any other rate throws: signing
 * a line under a guessed label would be a fiscal error, so the caller must fix its data.
 */
export function vatLabel(ratePercent: number): VatLabel {
  const label = LABELS.get(ratePercent);
  if (!label) throw new RangeError(`No Belgian VAT label for rate ${ratePercent} %`);
  return label;
}

/** The rates among `ratesPercent` that have no label (distinct, ascending): such a line cannot be signed. */
export function unlabelledVatRates(ratesPercent: Iterable<number>): number[] {
  return [...new Set([...ratesPercent].filter((r) => !LABELS.has(r)))].sort((a, b) => a - b);
}
