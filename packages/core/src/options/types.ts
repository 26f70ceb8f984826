/** Base shape of every select option returned by the public `*-options` routes. */
export interface OptionItem {
  value: string;
  label: string;
}

/**
 * Locale-aware but deterministic label comparator (English collation, so
 * "Åland Islands" sorts with the A's). Ties on label fall back to a plain
 * code-unit comparison of `value` so the order is total.
 */
const collator = new Intl.Collator('en', { sensitivity: 'base', numeric: true });

export function compareByLabel(a: OptionItem, b: OptionItem): number {
  const byLabel = collator.compare(a.label, b.label);
  if (byLabel !== 0) return byLabel;
  return a.value < b.value ? -1 : a.value > b.value ? 1 : 0;
}

/** Returns a new array sorted by label (input is not mutated). */
export function sortByLabel<T extends OptionItem>(items: readonly T[]): T[] {
  return [...items].sort(compareByLabel);
}
