import type { Cents } from '../money.ts';

/** What one item sold (or had refunded) somewhere: units and money, integer cents, VAT included. */
export interface ItemFigures {
  readonly item_id: string;
  /** The name on the lines (the catalog's name when the line was written). */
  readonly name: string;
  readonly quantity: number;
  readonly amount: Cents;
}

/** One row of the items report. */
export interface ItemRow {
  readonly item_id: string;
  readonly name: string;
  readonly quantity: number;
  /** Sum of the sold lines' totals (their discounts taken off). */
  readonly gross: Cents;
  readonly refunded_quantity: number;
  readonly refunds: Cents;
  /** gross - refunds. */
  readonly net: Cents;
}

export type ItemTotals = Omit<ItemRow, 'item_id' | 'name'>;

/**
 * The items report's rows: sales and refunds added up per item (several sources may name the same
 * item), named by `currentNames` (the catalog now) or else by the lines, ordered by net descending,
 * then name, then id.
 */
export function itemRows(sold: readonly ItemFigures[], refunded: readonly ItemFigures[], currentNames: ReadonlyMap<string, string>): ItemRow[] {
  const acc = new Map<string, { name: string; quantity: number; gross: number; refunded_quantity: number; refunds: number }>();
  const rowOf = (f: ItemFigures) => {
    let r = acc.get(f.item_id);
    if (!r) acc.set(f.item_id, (r = { name: f.name, quantity: 0, gross: 0, refunded_quantity: 0, refunds: 0 }));
    return r;
  };
  for (const f of sold) {
    const r = rowOf(f);
    r.quantity += f.quantity;
    r.gross += f.amount;
  }
  for (const f of refunded) {
    const r = rowOf(f);
    r.refunded_quantity += f.quantity;
    r.refunds += f.amount;
  }
  return [...acc.entries()]
    .map(([item_id, r]) => ({ item_id, name: currentNames.get(item_id) ?? r.name, quantity: r.quantity, gross: r.gross, refunded_quantity: r.refunded_quantity, refunds: r.refunds, net: r.gross - r.refunds }))
    .sort((a, b) => b.net - a.net || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) || (a.item_id < b.item_id ? -1 : 1));
}

export function itemTotals(rows: readonly ItemRow[]): ItemTotals {
  const t = { quantity: 0, gross: 0, refunded_quantity: 0, refunds: 0, net: 0 };
  for (const r of rows) {
    t.quantity += r.quantity;
    t.gross += r.gross;
    t.refunded_quantity += r.refunded_quantity;
    t.refunds += r.refunds;
    t.net += r.net;
  }
  return t;
}
