import { describe, expect, test } from 'bun:test';
import { coversTotal } from './paid-amount.ts';

describe('coversTotal', () => {
  test('the amount with its tip reaches the total; nothing missing or negative', () => {
    expect(coversTotal(280, null, 280)).toBe(true);
    expect(coversTotal(230, 50, 280)).toBe(true);
    expect(coversTotal(330, null, 280)).toBe(true);
    expect(coversTotal(279, null, 280)).toBe(false);
    expect(coversTotal(null, 280, 280)).toBe(false);
    expect(coversTotal(-5, 780, 280)).toBe(false);
    expect(coversTotal(380, -1, 280)).toBe(false);
  });
});
