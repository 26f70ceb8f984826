import { describe, expect, test } from 'bun:test';
import { coversTotal, terminalSaleCharge } from './paid-amount.ts';

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

describe('terminalSaleCharge', () => {
  const order = { total: 330, tip_amount: 50 };
  test('the sale amount exactly, and a tip no less than the kiosk tip: charged both', () => {
    expect(terminalSaleCharge(280, 50, order)).toEqual({ charged: 330, tip: 50 });
    expect(terminalSaleCharge(280, 120, order)).toEqual({ charged: 400, tip: 120 });
    expect(terminalSaleCharge(280, null, { total: 280, tip_amount: 0 })).toEqual({ charged: 280, tip: 0 });
  });
  test('another amount, or a tip that is short, negative or not money, is not this sale', () => {
    expect(terminalSaleCharge(null, 50, order)).toBe('amount_mismatch');
    expect(terminalSaleCharge(330, 50, order)).toBe('amount_mismatch');
    expect(terminalSaleCharge(279, 50, order)).toBe('amount_mismatch');
    expect(terminalSaleCharge(280, null, order)).toBe('tip_mismatch');
    expect(terminalSaleCharge(280, 49, order)).toBe('tip_mismatch');
    expect(terminalSaleCharge(280, -1, { total: 280, tip_amount: 0 })).toBe('tip_mismatch');
    expect(terminalSaleCharge(280, undefined, order)).toBe('tip_mismatch');
  });
});
