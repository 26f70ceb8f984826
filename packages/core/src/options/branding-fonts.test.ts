import { describe, expect, test } from 'bun:test';
import { brandingFontOptions } from './branding-fonts.ts';
import { expectSortedByLabel, expectUnique, expectWellFormed } from './test-helpers.ts';

describe('brandingFontOptions', () => {
  const items = brandingFontOptions();

  test('covers every category and both web-safe and web fonts', () => {
    const cats = new Set(items.map((f) => f.category));
    expect([...cats].sort()).toEqual(['display', 'monospace', 'sans-serif', 'serif']);
    expect(items.some((f) => f.web_safe)).toBe(true);
    expect(items.some((f) => !f.web_safe)).toBe(true);
  });

  test('stack quotes multi-word families', () => {
    expect(items).toContainEqual({
      value: 'Open Sans',
      label: 'Open Sans',
      category: 'sans-serif',
      web_safe: false,
      stack: "'Open Sans', sans-serif",
    });
    expect(items.find((f) => f.value === 'Georgia')?.stack).toBe('Georgia, serif');
  });

  test('unique, sorted, deterministic', () => {
    expectWellFormed(items);
    expectUnique(items.map((f) => f.value));
    expectSortedByLabel(items);
    expect(brandingFontOptions()).toEqual(items);
  });
});
