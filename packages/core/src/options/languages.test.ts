import { describe, expect, test } from 'bun:test';
import { langOptions } from './languages.ts';
import { expectSortedByLabel, expectUnique, expectWellFormed } from './test-helpers.ts';

describe('langOptions', () => {
  const langs = langOptions();

  test('includes Dutch', () => {
    expect(langs).toContainEqual({ value: 'nl', label: 'Dutch', native: 'Nederlands' });
  });

  test('includes the ISO 639-1 set (~184 languages)', () => {
    expect(langs.length).toBeGreaterThanOrEqual(180);
    for (const l of langs) {
      expect(l.value).toMatch(/^[a-z]{2}$/);
      expect(l.native.length).toBeGreaterThan(0);
    }
  });

  test('unique, sorted, deterministic', () => {
    expectWellFormed(langs);
    expectUnique(langs.map((l) => l.value));
    expectSortedByLabel(langs);
    expect(langOptions()).toEqual(langs);
  });
});
