// Pure: the variants chosen on a basket line and the price they give. No I/O.
import type { Cents } from '../money.ts';

export interface VariantGroupOf {
  readonly id: string;
  readonly name: string;
  readonly variants: readonly { readonly id: string; readonly name: string; readonly unit_price: Cents }[];
}

export type VariantChoice =
  | { readonly ok: true; readonly unit_price: Cents; readonly chosen: readonly { id: string; name: string }[] }
  /** `index`: the position in the ids of the id at fault, when one is. */
  | { readonly ok: false; readonly problem: 'none_chosen' | 'not_a_variant' | 'two_of_a_group' | 'group_missing' | 'no_price'; readonly index?: number; readonly group?: string };

/**
 * The variants of an item chosen by `ids` (lower-case ids, in the order sent), one per variant group:
 * an item sold in variants needs one of EACH of its groups (a size and a milk), never two of one group.
 * Each variant has its own price, the item's price as that variant, so each chosen variant adds its
 * difference from the item's price: `unit = item + sum(variant - item)`. With one group that is the
 * variant's price, as before; with two, "Large" (+0.50) and "Oat milk" (+0.40) add both. A combination
 * whose price would be negative is refused (`no_price`). An item without variants takes none.
 */
export function chooseVariants(item: { readonly unit_price: Cents; readonly variant_groups: readonly VariantGroupOf[] }, ids: readonly string[]): VariantChoice {
  const groups = item.variant_groups.filter((g) => g.variants.length > 0);
  if (ids.length === 0) return groups.length === 0 ? { ok: true, unit_price: item.unit_price, chosen: [] } : { ok: false, problem: 'none_chosen' };
  const picked = new Map<string, { id: string; name: string; unit_price: Cents }>();
  for (const [index, id] of ids.entries()) {
    const group = groups.find((g) => g.variants.some((v) => v.id === id));
    if (!group) return { ok: false, problem: 'not_a_variant', index };
    if (picked.has(group.id)) return { ok: false, problem: 'two_of_a_group', index, group: group.name };
    picked.set(group.id, group.variants.find((v) => v.id === id)!);
  }
  const missing = groups.find((g) => !picked.has(g.id));
  if (missing) return { ok: false, problem: 'group_missing', group: missing.name };
  // In the item's group order, whatever order they were sent in.
  const chosen = groups.map((g) => picked.get(g.id)!);
  const unit = chosen.reduce((s, v) => s + (v.unit_price - item.unit_price), item.unit_price);
  if (unit < 0) return { ok: false, problem: 'no_price' };
  return { ok: true, unit_price: unit, chosen: chosen.map((v) => ({ id: v.id, name: v.name })) };
}

/**
 * A sold line's name as the kitchen and the printed receipt show it: the item with the variants chosen
 * ("Latte (Large / Oat milk)"), from the line's stored `variant` (`{ id, name }`, its name joining the
 * names of several groups' variants). A line without a variant, or with one of another shape, keeps its name.
 */
export function nameWithVariant(name: string, variant: unknown): string {
  const v = variant as { name?: unknown } | null;
  return v && typeof v === 'object' && typeof v.name === 'string' && v.name.trim() !== '' ? `${name} (${v.name.trim()})` : name;
}

/**
 * The names of a sold line's modifiers, in order, as the printed receipt lists them under the line
 * ("+ Andalouse"), from the line's stored `modifiers` (`{ id, name, price }`); an entry without a name is left out.
 */
export function lineModifierNames(modifiers: unknown): string[] {
  if (!Array.isArray(modifiers)) return [];
  return modifiers.map((m) => (m && typeof m === 'object' && 'name' in m ? String((m as { name: unknown }).name) : '')).filter(Boolean);
}
