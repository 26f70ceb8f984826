import { describe, expect, test } from 'bun:test';
import { ALLERGEN_SLUGS, allergenOptions, isAllergenSlug } from './allergens.ts';
import { expectUnique, expectWellFormed } from './test-helpers.ts';

const EXPECTED: string[] = [
  'gluten',
  'crustaceans',
  'eggs',
  'fish',
  'peanuts',
  'soybeans',
  'milk',
  'nuts',
  'celery',
  'mustard',
  'sesame',
  'sulphites',
  'lupin',
  'molluscs',
];

describe('allergenOptions', () => {
  const items = allergenOptions();

  test('exactly the 14 EU Annex II allergens with stable slugs, in Annex order', () => {
    expect(items).toHaveLength(14);
    expect(items.map((a): string => a.value)).toEqual(EXPECTED);
    expect(items.map((a) => a.annex_ii)).toEqual(Array.from({ length: 14 }, (_, i) => i + 1));
    expect([...ALLERGEN_SLUGS] as string[]).toEqual(EXPECTED);
  });

  test('unique and well-formed', () => {
    expectWellFormed(items);
    expectUnique(items.map((a) => a.value));
    expectUnique(items.map((a) => a.label));
    for (const a of items) expect(a.description.length).toBeGreaterThan(0);
  });

  test('isAllergenSlug', () => {
    expect(isAllergenSlug('milk')).toBe(true);
    expect(isAllergenSlug('lactose')).toBe(false);
    expect(isAllergenSlug(7)).toBe(false);
  });

  test('returns fresh objects', () => {
    const first = allergenOptions()[0];
    if (first) first.label = 'mutated';
    expect(allergenOptions()).toEqual(items);
  });
});
