/**
 * Whether a customer-facing channel (kiosk, online, table QR, delivery) may sell an item, judged from
 * its stock at the location. An item is tracked there when it has a stock level row; an untracked
 * item, or one allowed to go below zero, is always sellable. The register does not use this rule:
 * staff sell what is physically on the counter even when the count is wrong.
 */
export interface StockLevel {
  /** Units at the location, or null when the item's stock is not tracked there. */
  readonly quantity: number | null;
  readonly allowNegative: boolean;
}

/** What a basket asks of an item beyond its stock: the first line naming it, and what is left. */
export interface StockShortfall {
  readonly itemId: string;
  readonly lineIndex: number;
  readonly left: number;
}

/** Sellable now: at least one unit, or not tracked, or allowed below zero. */
export function isInStock(level: StockLevel | undefined): boolean {
  return unlimited(level) || level!.quantity! > 0;
}

/**
 * The items a basket wants more of than the location holds, summed over all its lines (two lines of
 * the same item draw on one stock). Each is reported once, on the first line naming the item.
 */
export function stockShortfalls(lines: readonly { item_id: string; qty: number }[], levels: ReadonlyMap<string, StockLevel>): StockShortfall[] {
  const wanted = new Map<string, { qty: number; first: number }>();
  lines.forEach((l, i) => {
    const w = wanted.get(l.item_id);
    if (w) w.qty += l.qty;
    else wanted.set(l.item_id, { qty: l.qty, first: i });
  });
  const short: StockShortfall[] = [];
  for (const [itemId, w] of wanted) {
    const level = levels.get(itemId);
    if (unlimited(level)) continue;
    const left = Math.max(0, level!.quantity!);
    if (w.qty > left) short.push({ itemId, lineIndex: w.first, left });
  }
  return short.sort((a, b) => a.lineIndex - b.lineIndex);
}

function unlimited(level: StockLevel | undefined): boolean {
  return level === undefined || level.quantity === null || level.allowNegative;
}
