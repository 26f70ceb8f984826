import { describe, expect, test } from 'bun:test';
import { divRoundHalfUp, fromMajorUnits, toMajor, toMajorUnits } from './money.ts';
import { prng } from './testing/prng.ts';

describe('divRoundHalfUp', () => {
  test('rounds half up on exact integers', () => {
    expect(divRoundHalfUp(5, 10)).toBe(1);
    expect(divRoundHalfUp(4, 10)).toBe(0);
    expect(divRoundHalfUp(15, 10)).toBe(2);
    expect(divRoundHalfUp(25, 10)).toBe(3);
    expect(divRoundHalfUp(0, 7)).toBe(0);
    expect(divRoundHalfUp(121_000, 121)).toBe(1000);
  });

  test('is symmetric for negatives (half away from zero), never -0', () => {
    expect(divRoundHalfUp(-5, 10)).toBe(-1);
    expect(divRoundHalfUp(-4, 10)).toBe(0);
    expect(Object.is(divRoundHalfUp(-4, 10), -0)).toBe(false);
  });

  test('agrees with exact rational rounding on random inputs', () => {
    const r = prng(42);
    for (let i = 0; i < 5000; i++) {
      const n = r.int(-1_000_000, 1_000_000);
      const d = r.int(1, 20_000);
      const q = divRoundHalfUp(n, d);
      // |n/d - q| <= 1/2, and exactly 1/2 only when rounding away from zero.
      const twice = 2 * Math.abs(n - q * d);
      expect(twice).toBeLessThanOrEqual(d);
      if (twice === d) expect(Math.abs(q * d)).toBeGreaterThan(Math.abs(n));
    }
  });

  test('refuses non-integers and non-positive divisors', () => {
    expect(() => divRoundHalfUp(1.5, 2)).toThrow(RangeError);
    expect(() => divRoundHalfUp(1, 0)).toThrow(RangeError);
    expect(() => divRoundHalfUp(1, -3)).toThrow(RangeError);
  });
});

describe('major units', () => {
  test('toMajor is toMajorUnits', () => {
    expect(toMajor(1234)).toBe(12.34);
    expect(toMajor(-5)).toBe(-0.05);
    expect(toMajor(0)).toBe(0);
    expect(toMajorUnits(1999)).toBe(19.99);
    expect(fromMajorUnits(toMajor(1999))).toBe(1999);
  });
});
