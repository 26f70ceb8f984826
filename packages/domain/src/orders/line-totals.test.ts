import { describe, expect, test } from 'bun:test';
import { prng } from '../testing/prng.ts';
import { effectiveUnitPrice, lineTotals, unitDiscount, type OrderLine } from './line-totals.ts';

const base: OrderLine = {
  uuid: '3b241101-e2bb-4255-8caf-4136c566a962',
  item_id: 'item-1',
  qty: 1,
  unit_price: 450,
  price_source: 'catalog',
  modifiers: [],
};

describe('lineTotals', () => {
  test('plain line', () => {
    expect(lineTotals({ ...base, qty: 3 })).toEqual({ unit: 450, unit_discount: 0, subtotal: 1350, discount: 0, gross: 1350 });
  });

  test('modifiers add price x qty per unit, qty defaults to 1, free modifiers count 0', () => {
    const line: OrderLine = {
      ...base,
      qty: 2,
      modifiers: [{ name: 'Extra shot', price: 50, qty: 2 }, { id: 'm2', price: 30 }, { name: 'No ice', price: 0 }],
    };
    expect(effectiveUnitPrice(line)).toBe(450 + 100 + 30);
    expect(lineTotals(line)).toEqual({ unit: 580, unit_discount: 0, subtotal: 1160, discount: 0, gross: 1160 });
  });

  test('absent or null modifiers read as none', () => {
    const { modifiers: _m, ...noMods } = base;
    expect(lineTotals(noMods).gross).toBe(450);
    expect(lineTotals({ ...base, modifiers: null }).gross).toBe(450);
  });

  test('pct discount is per unit, rounded half up, then times qty', () => {
    // 333 * 10% = 33.3 -> 33 per unit; 3 units -> 99 (not round(999 * 10%) = 100)
    expect(lineTotals({ ...base, unit_price: 333, qty: 3, discount: { type: 'pct', value: 10 } })).toEqual({
      unit: 333,
      unit_discount: 33,
      subtotal: 999,
      discount: 99,
      gross: 900,
    });
    // 450 * 15% = 67.5 -> 68 (half up)
    expect(unitDiscount(450, { type: 'pct', value: 15 })).toBe(68);
    // 100 % frees the unit
    expect(lineTotals({ ...base, qty: 2, discount: { type: 'pct', value: 100 } })).toEqual({
      unit: 450,
      unit_discount: 450,
      subtotal: 900,
      discount: 900,
      gross: 0,
    });
  });

  test('pct discount applies to the effective unit (modifiers included)', () => {
    const line: OrderLine = { ...base, unit_price: 400, modifiers: [{ price: 50 }], discount: { type: 'pct', value: 50 } };
    expect(lineTotals(line)).toEqual({ unit: 450, unit_discount: 225, subtotal: 450, discount: 225, gross: 225 });
  });

  test('amount discount is per unit and capped at the unit', () => {
    expect(lineTotals({ ...base, qty: 4, discount: { type: 'amount', value: 100 } })).toEqual({
      unit: 450,
      unit_discount: 100,
      subtotal: 1800,
      discount: 400,
      gross: 1400,
    });
    expect(lineTotals({ ...base, qty: 2, discount: { type: 'amount', value: 10_000 } })).toEqual({
      unit: 450,
      unit_discount: 450,
      subtotal: 900,
      discount: 900,
      gross: 0,
    });
  });

  test('zero-priced unit with a discount stays at zero', () => {
    expect(lineTotals({ ...base, unit_price: 0, discount: { type: 'amount', value: 5 } }).gross).toBe(0);
    expect(lineTotals({ ...base, unit_price: 0, discount: { type: 'pct', value: 50 } }).gross).toBe(0);
  });

  test('refuses lines validation would refuse', () => {
    expect(() => lineTotals({ ...base, qty: 0 })).toThrow(RangeError);
    expect(() => lineTotals({ ...base, qty: 1.5 })).toThrow(RangeError);
    expect(() => lineTotals({ ...base, unit_price: 4.5 })).toThrow(RangeError);
    expect(() => lineTotals({ ...base, unit_price: -1 })).toThrow(RangeError);
    expect(() => lineTotals({ ...base, modifiers: [{ price: -1 }] })).toThrow(RangeError);
    expect(() => lineTotals({ ...base, modifiers: [{ price: 1, qty: 0 }] })).toThrow(RangeError);
    expect(() => lineTotals({ ...base, discount: { type: 'pct', value: 0 } })).toThrow(RangeError);
    expect(() => lineTotals({ ...base, discount: { type: 'pct', value: 12.5 } })).toThrow(RangeError);
    expect(() => lineTotals({ ...base, discount: { type: 'pct', value: 101 } })).toThrow(RangeError);
    expect(() => lineTotals({ ...base, discount: { type: 'amount', value: 0 } })).toThrow(RangeError);
    expect(() => lineTotals({ ...base, discount: { type: 'bogus', value: 1 } as never })).toThrow(RangeError);
  });

  test('property: gross = (unit - unit_discount) * qty, 0 <= gross <= subtotal, discount multiple of qty', () => {
    const r = prng(7);
    for (let i = 0; i < 3000; i++) {
      const line: OrderLine = {
        ...base,
        qty: r.int(1, 999),
        unit_price: r.int(0, 20_000),
        modifiers: Array.from({ length: r.int(0, 3) }, () => ({ price: r.int(0, 500), qty: r.bool() ? r.int(1, 3) : undefined })),
        discount: r.bool(0.3) ? null : r.bool() ? { type: 'pct', value: r.int(1, 100) } : { type: 'amount', value: r.int(1, 30_000) },
      };
      const t = lineTotals(line);
      expect(t.gross).toBe((t.unit - t.unit_discount) * line.qty);
      expect(t.subtotal).toBe(t.unit * line.qty);
      expect(t.discount).toBe(t.unit_discount * line.qty);
      expect(t.gross).toBeGreaterThanOrEqual(0);
      expect(t.gross).toBeLessThanOrEqual(t.subtotal);
      expect(t.unit_discount).toBeLessThanOrEqual(t.unit);
      if (line.discount?.type === 'pct') {
        // |unit * pct / 100 - unit_discount| <= 1/2
        expect(Math.abs(t.unit * line.discount.value - 100 * t.unit_discount)).toBeLessThanOrEqual(50);
      }
    }
  });
});
