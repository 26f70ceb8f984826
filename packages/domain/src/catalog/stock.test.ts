import { describe, expect, test } from 'bun:test';
import { isInStock, stockShortfalls, type StockLevel } from './stock.ts';

const tracked = (quantity: number, allowNegative = false): StockLevel => ({ quantity, allowNegative });

describe('isInStock', () => {
  test('an untracked item, or one allowed below zero, is always in stock; a tracked one needs a unit', () => {
    expect(isInStock(undefined)).toBe(true);
    expect(isInStock({ quantity: null, allowNegative: false })).toBe(true);
    expect(isInStock(tracked(0, true))).toBe(true);
    expect(isInStock(tracked(-3, true))).toBe(true);
    expect(isInStock(tracked(1))).toBe(true);
    expect(isInStock(tracked(0))).toBe(false);
    expect(isInStock(tracked(-2))).toBe(false);
  });
});

describe('stockShortfalls', () => {
  const levels = new Map<string, StockLevel>([
    ['a', tracked(3)],
    ['b', tracked(0)],
    ['c', tracked(0, true)],
    ['d', tracked(-4)],
  ]);

  test('a basket within stock has no shortfall; untracked items are unlimited', () => {
    expect(stockShortfalls([{ item_id: 'a', qty: 3 }, { item_id: 'x', qty: 999 }, { item_id: 'c', qty: 50 }], levels)).toEqual([]);
  });

  test('lines of the same item draw on one stock and are reported once, on the first line', () => {
    expect(stockShortfalls([{ item_id: 'x', qty: 1 }, { item_id: 'a', qty: 2 }, { item_id: 'a', qty: 2 }], levels)).toEqual([{ itemId: 'a', lineIndex: 1, left: 3 }]);
  });

  test('sold-out items report zero left, a level below zero too; shortfalls come in line order', () => {
    expect(stockShortfalls([{ item_id: 'd', qty: 1 }, { item_id: 'b', qty: 1 }, { item_id: 'a', qty: 4 }], levels)).toEqual([
      { itemId: 'd', lineIndex: 0, left: 0 },
      { itemId: 'b', lineIndex: 1, left: 0 },
      { itemId: 'a', lineIndex: 2, left: 3 },
    ]);
  });
});
