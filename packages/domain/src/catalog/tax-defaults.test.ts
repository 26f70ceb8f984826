import { describe, expect, test } from 'bun:test';
import { defaultTaxRates } from './tax-defaults.ts';

describe('defaultTaxRates', () => {
  test('Belgium: 21, 12, 6, 0', () => {
    expect(defaultTaxRates(['BE']).map((r) => r.rate)).toEqual([21, 12, 6, 0]);
  });
  test('several countries, case-insensitive, each listed once', () => {
    expect(defaultTaxRates(['nl', 'NL', 'DE']).map((r) => `${r.country}${r.rate}`)).toEqual(['NL21', 'NL9', 'NL0', 'DE19', 'DE7', 'DE0']);
  });
  test('unknown or no country falls back to Belgium', () => {
    expect(defaultTaxRates(['XX']).map((r) => r.rate)).toEqual([21, 12, 6, 0]);
    expect(defaultTaxRates([])[0]).toEqual({ country: 'BE', name: 'VAT 21%', rate: 21 });
  });
});
