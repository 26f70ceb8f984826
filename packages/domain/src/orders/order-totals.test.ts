import { describe, expect, test } from 'bun:test';
import { prng, prngUuidV4 } from '../testing/prng.ts';
import type { OrderLine } from './line-totals.ts';
import { orderTotals, vatGroup, vatOfGross } from './order-totals.ts';

const RATES: Record<string, number> = { coffee: 21, sandwich: 6, beer: 21, water: 0, wine: 12 };
const rateOf = (id: string): number => {
  const r = RATES[id];
  if (r === undefined) throw new Error(`no rate for ${id}`);
  return r;
};
let n = 0;
const line = (item_id: string, unit_price: number, qty: number, extra: Partial<OrderLine> = {}): OrderLine => ({
  uuid: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  item_id,
  qty,
  unit_price,
  price_source: 'catalog',
  modifiers: [],
  ...extra,
});

describe('vatOfGross', () => {
  test('gross - round(gross * 100 / (100 + rate))', () => {
    expect(vatOfGross(500, 21)).toBe(87); // net 413.22 -> 413
    expect(vatOfGross(540, 6)).toBe(31); // net 509.43 -> 509
    expect(vatOfGross(121, 21)).toBe(21);
    expect(vatOfGross(1000, 0)).toBe(0);
    expect(vatOfGross(0, 21)).toBe(0);
  });

  test('an exact half rounds the net up', () => {
    // 350 * 100 / 112 = 312.5 -> 313, vat 37
    expect(vatOfGross(350, 12)).toBe(37);
  });

  test('non-integer rates work in hundredths', () => {
    expect(vatOfGross(1055, 5.5)).toBe(55);
  });

  test('a negative gross mirrors the positive one', () => {
    expect(vatOfGross(-350, 12)).toBe(-37);
    expect(vatGroup(21, -500)).toEqual({ rate: 21, net: -413, vat: -87, gross: -500 });
  });

  test('refuses bad rates', () => {
    expect(() => vatOfGross(100, -1)).toThrow(RangeError);
    expect(() => vatOfGross(100, Number.NaN)).toThrow(RangeError);
    expect(() => vatOfGross(100, 101)).toThrow(RangeError);
  });
});

describe('orderTotals', () => {
  test('an empty order', () => {
    expect(orderTotals([], rateOf)).toEqual({ subtotal: 0, discount: 0, vat: 0, total: 0, by_vat_rate: [] });
  });

  test('two rates, a discount, groups sorted by rate descending', () => {
    const t = orderTotals([line('sandwich', 600, 1, { discount: { type: 'pct', value: 10 } }), line('coffee', 250, 2)], rateOf);
    expect(t).toEqual({
      subtotal: 1100,
      discount: 60,
      vat: 118,
      total: 1040,
      by_vat_rate: [
        { rate: 21, net: 413, vat: 87, gross: 500 },
        { rate: 6, net: 509, vat: 31, gross: 540 },
      ],
    });
  });

  test('VAT is computed per rate group, not per line', () => {
    // Per line: 3 x (100 - round(10000/121) = 17) = 51. Per group: 300 - round(30000/121) = 52.
    const t = orderTotals([line('coffee', 100, 1), line('beer', 100, 1), line('coffee', 100, 1)], rateOf);
    expect(t.by_vat_rate).toEqual([{ rate: 21, net: 248, vat: 52, gross: 300 }]);
    expect(t.vat).toBe(52);
  });

  test('modifiers carry the line item rate', () => {
    const t = orderTotals([line('water', 200, 1, { modifiers: [{ name: 'lemon', price: 50 }] }), line('coffee', 300, 1)], rateOf);
    expect(t.by_vat_rate).toEqual([
      { rate: 21, net: 248, vat: 52, gross: 300 },
      { rate: 0, net: 250, vat: 0, gross: 250 },
    ]);
    expect(t.total).toBe(550);
  });

  test('a fully discounted line keeps its (zero) rate group; the total is never negative', () => {
    const t = orderTotals([line('wine', 700, 2, { discount: { type: 'amount', value: 9999 } }), line('coffee', 250, 1)], rateOf);
    expect(t).toEqual({
      subtotal: 1650,
      discount: 1400,
      vat: 43,
      total: 250,
      by_vat_rate: [
        { rate: 21, net: 207, vat: 43, gross: 250 },
        { rate: 12, net: 0, vat: 0, gross: 0 },
      ],
    });
  });

  test('a bad rate from the lookup is a RangeError', () => {
    expect(() => orderTotals([line('coffee', 100, 1)], () => -6)).toThrow(RangeError);
  });

  test('property: totals are consistent on random orders', () => {
    const r = prng(2026);
    const items = Object.keys(RATES);
    for (let i = 0; i < 1500; i++) {
      const lines: OrderLine[] = Array.from({ length: r.int(0, 12) }, () => ({
        uuid: prngUuidV4(r),
        item_id: r.pick(items),
        qty: r.int(1, 20),
        unit_price: r.int(0, 5000),
        price_source: 'catalog',
        modifiers: Array.from({ length: r.int(0, 2) }, () => ({ price: r.int(0, 300), qty: r.int(1, 2) })),
        discount: r.bool(0.6) ? null : r.bool() ? { type: 'pct' as const, value: r.int(1, 100) } : { type: 'amount' as const, value: r.int(1, 6000) },
      }));
      const t = orderTotals(lines, rateOf);
      expect(t.total).toBe(t.subtotal - t.discount);
      expect(t.total).toBeGreaterThanOrEqual(0);
      expect(t.by_vat_rate.reduce((s, g) => s + g.gross, 0)).toBe(t.total);
      expect(t.by_vat_rate.reduce((s, g) => s + g.vat, 0)).toBe(t.vat);
      const rates = t.by_vat_rate.map((g) => g.rate);
      expect(rates).toEqual([...new Set(lines.map((l) => rateOf(l.item_id)))].sort((a, b) => b - a));
      for (const g of t.by_vat_rate) {
        expect(g.net + g.vat).toBe(g.gross);
        // net is the rounded exact net: |gross*100/(100+rate) - net| <= 1/2
        expect(Math.abs(2 * (g.gross * 100 - g.net * (100 + g.rate)))).toBeLessThanOrEqual(100 + g.rate);
      }
    }
  });
});
