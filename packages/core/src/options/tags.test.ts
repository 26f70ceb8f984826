import { describe, expect, test } from 'bun:test';
import { tagOptions } from './tags.ts';
import { expectSortedByLabel, expectUnique, expectWellFormed } from './test-helpers.ts';

describe('tagOptions', () => {
  const items = tagOptions();

  test('contains the core menu tags', () => {
    const values = items.map((t) => t.value);
    for (const v of ['new', 'popular', 'spicy', 'chef_special', 'seasonal', 'limited']) expect(values).toContain(v);
  });

  test('unique slugs, sorted, deterministic', () => {
    expectWellFormed(items);
    for (const t of items) expect(t.value).toMatch(/^[a-z][a-z_]*$/);
    expectUnique(items.map((t) => t.value));
    expectUnique(items.map((t) => t.label));
    expectSortedByLabel(items);
    expect(tagOptions()).toEqual(items);
  });
});
