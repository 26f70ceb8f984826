import { describe, expect, test } from 'bun:test';
import { refundCash } from './refund-cash.ts';

describe('refundCash', () => {
  test('a sale rounded down (4.97 paid 4.95) hands back 4.95 in full, or 2.77 then 2.18 line by line', () => {
    expect(refundCash({ saleTotal: 497, saleRounding: 2, linesBefore: 0, cashBefore: 0, lines: 497 })).toEqual({ cash: 495, rounding: 2 });
    expect(refundCash({ saleTotal: 497, saleRounding: 2, linesBefore: 0, cashBefore: 0, lines: 277 })).toEqual({ cash: 277, rounding: 0 });
    expect(refundCash({ saleTotal: 497, saleRounding: 2, linesBefore: 277, cashBefore: 277, lines: 220 })).toEqual({ cash: 218, rounding: 2 });
  });
  test('a sale rounded up (4.98 paid 5.00): the last refund hands back the 2 cents paid above the lines', () => {
    expect(refundCash({ saleTotal: 498, saleRounding: -2, linesBefore: 0, cashBefore: 0, lines: 278 })).toEqual({ cash: 278, rounding: 0 });
    expect(refundCash({ saleTotal: 498, saleRounding: -2, linesBefore: 278, cashBefore: 278, lines: 220 })).toEqual({ cash: 222, rounding: -2 });
  });
  test('never more than was paid, never negative: a 1-cent line refunded last after the rounding was used up', () => {
    // 9.96 + 0.01 = 9.97, paid 9.95: the 9.96 line gets 9.95 back, the 0.01 line nothing.
    expect(refundCash({ saleTotal: 997, saleRounding: 2, linesBefore: 0, cashBefore: 0, lines: 996 })).toEqual({ cash: 995, rounding: 1 });
    expect(refundCash({ saleTotal: 997, saleRounding: 2, linesBefore: 996, cashBefore: 995, lines: 1 })).toEqual({ cash: 0, rounding: 1 });
  });
  test('a sale without rounding hands back the lines', () => {
    expect(refundCash({ saleTotal: 560, saleRounding: 0, linesBefore: 280, cashBefore: 280, lines: 280 })).toEqual({ cash: 280, rounding: 0 });
  });
});
