/**
 * What an offer targets once an item or a category it names is deleted. Pure; the decision is in
 * docs/decisions.md ("Catalog structure after a prober's pass"). An offer's `item_ids` and
 * `category_ids` both empty means every item, so taking the last target out of an offer would widen
 * it to the whole catalog: that deletion is refused instead; otherwise the deleted id simply leaves
 * the list (the offer keeps discounting what still exists).
 */
export interface OfferTargets {
  readonly item_ids: readonly string[];
  readonly category_ids: readonly string[];
}

export type TargetRemoval =
  | { readonly kind: 'unchanged' }
  | { readonly kind: 'narrowed'; readonly item_ids: string[]; readonly category_ids: string[] }
  | { readonly kind: 'refused' };

export function removeOfferTarget(offer: OfferTargets, deleted: { readonly kind: 'item' | 'category'; readonly id: string }): TargetRemoval {
  const id = deleted.id.toLowerCase();
  const list = deleted.kind === 'item' ? offer.item_ids : offer.category_ids;
  if (!list.some((x) => x.toLowerCase() === id)) return { kind: 'unchanged' };
  const item_ids = deleted.kind === 'item' ? offer.item_ids.filter((x) => x.toLowerCase() !== id) : [...offer.item_ids];
  const category_ids = deleted.kind === 'category' ? offer.category_ids.filter((x) => x.toLowerCase() !== id) : [...offer.category_ids];
  if (item_ids.length === 0 && category_ids.length === 0) return { kind: 'refused' };
  return { kind: 'narrowed', item_ids, category_ids };
}

/** The 409 message of a refused deletion (reason `item_in_offer` or `category_in_offer`). */
export const offerTargetRefusal = (kind: 'item' | 'category', offerName: string): string =>
  `The offer "${offerName}" applies to this ${kind} only. Change or delete the offer first.`;
