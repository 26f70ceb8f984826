import { describe, expect, test } from 'bun:test';
import { vatLabel } from './vat.ts';

describe('vatLabel', () => {
  test('maps the Belgian rates', () => {
    expect([21, 12, 6, 0].map(vatLabel)).toEqual(['A', 'B', 'C', 'D']);
  });
  test('refuses any other rate', () => {
    expect(() => vatLabel(9)).toThrow(RangeError);
    expect(() => vatLabel(0.21)).toThrow(RangeError);
  });
});
