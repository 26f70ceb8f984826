import { describe, expect, test } from 'bun:test';
import { chooseVariants, lineModifierNames, nameWithVariant } from './variants.ts';

const size = { id: 'g1', name: 'Size', variants: [{ id: 's', name: 'Small', unit_price: 300 }, { id: 'l', name: 'Large', unit_price: 350 }] };
const milk = { id: 'g2', name: 'Milk', variants: [{ id: 'r', name: 'Regular', unit_price: 300 }, { id: 'o', name: 'Oat', unit_price: 340 }] };
const latte = { unit_price: 300, variant_groups: [size, milk] };

describe('chooseVariants', () => {
  test('one of each group: each variant adds its difference from the item price, whatever the order sent', () => {
    expect(chooseVariants(latte, ['l', 'o'])).toEqual({ ok: true, unit_price: 390, chosen: [{ id: 'l', name: 'Large' }, { id: 'o', name: 'Oat' }] });
    expect(chooseVariants(latte, ['o', 's'])).toEqual({ ok: true, unit_price: 340, chosen: [{ id: 's', name: 'Small' }, { id: 'o', name: 'Oat' }] });
  });
  test('one group: the variant price, as before', () => {
    expect(chooseVariants({ unit_price: 0, variant_groups: [size] }, ['l'])).toEqual({ ok: true, unit_price: 350, chosen: [{ id: 'l', name: 'Large' }] });
  });
  test('none, a group missing, two of one group, or another item\'s variant are refused', () => {
    expect(chooseVariants(latte, [])).toEqual({ ok: false, problem: 'none_chosen' });
    expect(chooseVariants(latte, ['l'])).toEqual({ ok: false, problem: 'group_missing', group: 'Milk' });
    expect(chooseVariants(latte, ['l', 's'])).toEqual({ ok: false, problem: 'two_of_a_group', index: 1, group: 'Size' });
    expect(chooseVariants(latte, ['l', 'l'])).toEqual({ ok: false, problem: 'two_of_a_group', index: 1, group: 'Size' });
    expect(chooseVariants(latte, ['x'])).toEqual({ ok: false, problem: 'not_a_variant', index: 0 });
  });
  test('an item without variants takes none; a combination below zero has no price', () => {
    expect(chooseVariants({ unit_price: 220, variant_groups: [] }, [])).toEqual({ ok: true, unit_price: 220, chosen: [] });
    const cheap = { unit_price: 500, variant_groups: [{ ...size, variants: [{ id: 's', name: 'Small', unit_price: 0 }] }, { ...milk, variants: [{ id: 'r', name: 'Regular', unit_price: 0 }] }] };
    expect(chooseVariants(cheap, ['s', 'r'])).toEqual({ ok: false, problem: 'no_price' });
  });
});

describe('nameWithVariant', () => {
  test('the chosen variants follow the item name; no variant, or a malformed one, leaves the name', () => {
    expect(nameWithVariant('Latte', { id: 'v1', name: 'Large' })).toBe('Latte (Large)');
    expect(nameWithVariant('Latte', { id: 'v1', name: 'Large / Oat milk', variants: [{ id: 'v1', name: 'Large' }, { id: 'v2', name: 'Oat milk' }] })).toBe('Latte (Large / Oat milk)');
    expect(nameWithVariant('Latte', null)).toBe('Latte');
    expect(nameWithVariant('Latte', { id: 'v1' })).toBe('Latte');
    expect(nameWithVariant('Latte', { id: 'v1', name: '  ' })).toBe('Latte');
    expect(nameWithVariant('Latte', 'Large')).toBe('Latte');
  });
});

describe('lineModifierNames', () => {
  test('the names of the stored modifiers, in order; entries without a name and non-lists give nothing', () => {
    expect(lineModifierNames([{ id: 'm1', name: 'Andalouse', price: 70 }, { id: 'm2', name: 'Extra shot', price: 60 }, { id: 'm2', name: 'Extra shot', price: 60 }])).toEqual(['Andalouse', 'Extra shot', 'Extra shot']);
    expect(lineModifierNames([{ id: 'm1' }, null, 'x', { name: '' }])).toEqual([]);
    expect(lineModifierNames(null)).toEqual([]);
    expect(lineModifierNames('Andalouse')).toEqual([]);
  });
});
