import { describe, expect, test } from 'bun:test';
import { roundCash } from './cash-rounding.ts';

describe('roundCash', () => {
  // Ending -> rounded value of 12.3x (1230 + ending), the Belgian table.
  const table: ReadonlyArray<readonly [number, number]> = [
    [0, 1230],
    [1, 1230],
    [2, 1230],
    [3, 1235],
    [4, 1235],
    [5, 1235],
    [6, 1235],
    [7, 1235],
    [8, 1240],
    [9, 1240],
  ];
  for (const [ending, rounded] of table) {
    test(`ending ${ending}: ${1230 + ending} -> ${rounded}`, () => {
      expect(roundCash(1230 + ending)).toBe(rounded);
    });
  }

  test('shares under 5 cents are never rounded', () => {
    expect([0, 1, 2, 3, 4].map(roundCash)).toEqual([0, 1, 2, 3, 4]);
  });

  test('5 to 9 cents follow the table', () => {
    expect([5, 6, 7, 8, 9, 10, 11, 12, 13].map(roundCash)).toEqual([5, 5, 5, 10, 10, 10, 10, 10, 15]);
  });

  test('result is a multiple of 5 within 2 cents, for every amount from 5 to 10000', () => {
    for (let cents = 5; cents <= 10_000; cents++) {
      const rounded = roundCash(cents);
      expect(rounded % 5).toBe(0);
      expect(Math.abs(rounded - cents)).toBeLessThanOrEqual(2);
    }
  });

  test('negative or fractional input is a RangeError', () => {
    expect(() => roundCash(-1)).toThrow(RangeError);
    expect(() => roundCash(-5)).toThrow(RangeError);
    expect(() => roundCash(10.5)).toThrow(RangeError);
    expect(() => roundCash(Number.NaN)).toThrow(RangeError);
  });
});
