import { describe, expect, test } from 'bun:test';
import { MAX_ORDER_CENTS } from '../money.ts';
import { marketplaceOrderInRange } from './marketplace-order-range.ts';

const order = (quantity: number, unit_price: number, extra: Partial<{ delivery_fee: number; tip: number; total: number }> = {}) => ({
  items: [{ quantity, unit_price }],
  delivery_fee: 0,
  tip: 0,
  total: Math.min(quantity * unit_price, MAX_ORDER_CENTS),
  ...extra,
});

describe('marketplaceOrderInRange', () => {
  test('an ordinary order fits', () => expect(marketplaceOrderInRange(order(2, 260, { delivery_fee: 250, tip: 100 }))).toBe(true));
  test('a line gross at the limit fits; one cent over does not', () => {
    expect(marketplaceOrderInRange(order(1, MAX_ORDER_CENTS))).toBe(true);
    expect(marketplaceOrderInRange(order(1, MAX_ORDER_CENTS + 1))).toBe(false);
  });
  test('a product beyond the columns does not fit', () => expect(marketplaceOrderInRange(order(100_000, 10_000_000))).toBe(false));
  test('a free line with a quantity beyond the columns does not fit', () => expect(marketplaceOrderInRange(order(5_000_000_000, 0))).toBe(false));
  test('fees pushing the sum over the limit do not fit', () => expect(marketplaceOrderInRange(order(1, MAX_ORDER_CENTS, { delivery_fee: 1 }))).toBe(false));
  test('lines that each fit but together do not', () =>
    expect(marketplaceOrderInRange({ items: [{ quantity: 1, unit_price: MAX_ORDER_CENTS }, { quantity: 1, unit_price: 1 }], delivery_fee: 0, tip: 0, total: 0 })).toBe(false));
  test('a quantity of 0, a negative price, fee, tip or total does not fit', () => {
    expect(marketplaceOrderInRange(order(0, 260))).toBe(false);
    expect(marketplaceOrderInRange(order(1, -260))).toBe(false);
    expect(marketplaceOrderInRange(order(-1, -260))).toBe(false);
    for (const extra of [{ delivery_fee: -1 }, { tip: -1 }, { total: -1 }]) expect(marketplaceOrderInRange(order(1, 260, extra))).toBe(false);
  });
});
