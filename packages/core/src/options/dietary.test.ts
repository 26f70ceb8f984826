import { describe, expect, test } from 'bun:test';
import { dietaryPreferenceOptions, dietarySupplementOptions } from './dietary.ts';
import { expectSortedByLabel, expectUnique, expectWellFormed } from './test-helpers.ts';

describe('dietaryPreferenceOptions', () => {
  const items = dietaryPreferenceOptions();

  test('contains the core diets', () => {
    const values = items.map((d) => d.value);
    for (const v of ['vegetarian', 'vegan', 'pescatarian', 'halal', 'kosher', 'gluten_free', 'lactose_free']) {
      expect(values).toContain(v);
    }
  });

  test('unique slugs, sorted, deterministic', () => {
    expectWellFormed(items);
    for (const d of items) expect(d.value).toMatch(/^[a-z][a-z_]*$/);
    expectUnique(items.map((d) => d.value));
    expectUnique(items.map((d) => d.label));
    expectSortedByLabel(items);
    expect(dietaryPreferenceOptions()).toEqual(items);
  });
});

describe('dietarySupplementOptions', () => {
  const items = dietarySupplementOptions();

  test('contains the Zusatzstoffe declarations', () => {
    const values = items.map((d) => d.value);
    for (const v of [
      'contains_caffeine',
      'contains_alcohol',
      'with_sweeteners',
      'with_colourings',
      'with_preservatives',
      'with_flavour_enhancers',
      'with_phosphate',
    ]) {
      expect(values).toContain(v);
    }
  });

  test('unique slugs, sorted, deterministic', () => {
    expectWellFormed(items);
    for (const d of items) expect(d.value).toMatch(/^[a-z][a-z_]*$/);
    expectUnique(items.map((d) => d.value));
    expectUnique(items.map((d) => d.label));
    expectSortedByLabel(items);
    expect(dietarySupplementOptions()).toEqual(items);
  });

  test('no slug collides with dietary preferences', () => {
    const prefs = new Set(dietaryPreferenceOptions().map((d) => d.value));
    for (const s of items) expect(prefs.has(s.value)).toBe(false);
  });
});
