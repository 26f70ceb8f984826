import { describe, expect, test } from 'bun:test';
import { callingCodeOptions } from './calling-codes.ts';
import { expectSortedByLabel, expectUnique, expectWellFormed } from './test-helpers.ts';

describe('callingCodeOptions', () => {
  const codes = callingCodeOptions();

  test('includes Belgium (+32)', () => {
    expect(codes).toContainEqual({ value: '+32', label: 'Belgium (+32)', country: 'BE' });
  });

  test('one entry per country, every country named', () => {
    expect(codes.length).toBeGreaterThanOrEqual(240);
    expectWellFormed(codes);
    for (const c of codes) {
      expect(c.value).toMatch(/^\+\d{1,4}$/);
      expect(c.country).toMatch(/^[A-Z]{2}$/);
      expect(c.label.startsWith(`${c.country} `)).toBe(false); // a real name, not the code fallback
      expect(c.label.endsWith(` (${c.value})`)).toBe(true);
    }
    // `value` is intentionally shared (e.g. +1); country and label are the unique keys.
    expectUnique(codes.map((c) => c.country));
    expectUnique(codes.map((c) => c.label));
    expect(codes.filter((c) => c.value === '+1').map((c) => c.country)).toEqual(
      expect.arrayContaining(['US', 'CA']),
    );
  });

  test('non-ISO dialling regions get a name', () => {
    expect(codes).toContainEqual({ value: '+247', label: 'Ascension Island (+247)', country: 'AC' });
  });

  test('sorted by label, deterministic', () => {
    expectSortedByLabel(codes);
    expect(callingCodeOptions()).toEqual(codes);
  });
});
