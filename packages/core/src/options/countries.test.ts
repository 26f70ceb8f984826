import { describe, expect, test } from 'bun:test';
import { countryOptions, PAYMENT_PROFILE_COUNTRIES } from './countries.ts';
import { expectSortedByLabel, expectUnique, expectWellFormed } from './test-helpers.ts';

describe('countryOptions', () => {
  const all = countryOptions();

  test('contains Belgium with calling code +32', () => {
    expect(all).toContainEqual({ value: 'BE', label: 'Belgium', calling_code: '+32' });
  });

  test('has about 249 countries', () => {
    expect(all.length).toBeGreaterThanOrEqual(245);
    expect(all.length).toBeLessThanOrEqual(255);
  });

  test('values are ISO alpha-2, unique, labels sorted', () => {
    expectWellFormed(all);
    for (const c of all) expect(c.value).toMatch(/^[A-Z]{2}$/);
    expectUnique(all.map((c) => c.value));
    expectSortedByLabel(all);
  });

  test('calling code omitted when unknown, well-formed otherwise', () => {
    const aq = all.find((c) => c.value === 'AQ');
    expect(aq).toBeDefined();
    expect(aq && 'calling_code' in aq).toBe(false);
    for (const c of all) if (c.calling_code !== undefined) expect(c.calling_code).toMatch(/^\+\d{1,4}$/);
  });

  test('forPaymentProfile restricts the list', () => {
    const pay = countryOptions({ forPaymentProfile: true });
    const codes = pay.map((c) => c.value);
    expect(codes).toContain('BE');
    expect(codes).toContain('GB');
    expect(codes).toContain('US');
    expect(codes).not.toContain('KP');
    expect(codes).not.toContain('RU');
    expect(pay.length).toBe(PAYMENT_PROFILE_COUNTRIES.length);
    expect(pay.length).toBeLessThan(all.length);
    expectUnique(codes);
    expectSortedByLabel(pay);
  });

  test('payment-profile constant has no duplicates and only known codes', () => {
    expectUnique(PAYMENT_PROFILE_COUNTRIES);
    const known = new Set(all.map((c) => c.value));
    for (const code of PAYMENT_PROFILE_COUNTRIES) expect(known.has(code)).toBe(true);
  });

  test('forPaymentProfile false and lang en give the full list', () => {
    expect(countryOptions({ forPaymentProfile: false, lang: 'en' })).toEqual(all);
  });

  test('deterministic and returns fresh objects', () => {
    const a = countryOptions();
    const first = a[0];
    if (first) first.label = 'mutated';
    expect(countryOptions()).toEqual(all);
  });
});
