import { describe, expect, test } from 'bun:test';
import { offerTargetRefusal, removeOfferTarget } from './offer-targets.ts';

const A = '01a00000-0000-7000-8000-00000000000a';
const B = '01a00000-0000-7000-8000-00000000000b';
const C = '01a00000-0000-7000-8000-00000000000c';

describe('removeOfferTarget', () => {
  test('an id the offer does not name leaves it unchanged', () => {
    expect(removeOfferTarget({ item_ids: [A], category_ids: [] }, { kind: 'item', id: B })).toEqual({ kind: 'unchanged' });
    expect(removeOfferTarget({ item_ids: [A], category_ids: [] }, { kind: 'category', id: A })).toEqual({ kind: 'unchanged' });
    expect(removeOfferTarget({ item_ids: [], category_ids: [] }, { kind: 'item', id: A })).toEqual({ kind: 'unchanged' });
  });
  test('the deleted id leaves its list (any case), the other list is kept', () => {
    expect(removeOfferTarget({ item_ids: [A, B], category_ids: [C] }, { kind: 'item', id: A.toUpperCase() })).toEqual({ kind: 'narrowed', item_ids: [B], category_ids: [C] });
    expect(removeOfferTarget({ item_ids: [A], category_ids: [C] }, { kind: 'item', id: A })).toEqual({ kind: 'narrowed', item_ids: [], category_ids: [C] });
    expect(removeOfferTarget({ item_ids: [A], category_ids: [C] }, { kind: 'category', id: C })).toEqual({ kind: 'narrowed', item_ids: [A], category_ids: [] });
  });
  test('taking the last target out (both lists empty means every item) is refused', () => {
    expect(removeOfferTarget({ item_ids: [A], category_ids: [] }, { kind: 'item', id: A })).toEqual({ kind: 'refused' });
    expect(removeOfferTarget({ item_ids: [], category_ids: [C] }, { kind: 'category', id: C })).toEqual({ kind: 'refused' });
    expect(offerTargetRefusal('item', 'Coffee deal')).toBe('The offer "Coffee deal" applies to this item only. Change or delete the offer first.');
  });
});
