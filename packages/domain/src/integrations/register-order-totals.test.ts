import { describe, expect, test } from 'bun:test';
import { priceBasket } from '../catalog/pricing.ts';
import { registerDiscount } from './register-order-totals.ts';

describe('registerDiscount', () => {
  test('an offer already in the line totals is not taken off again', () => {
    const priced = priceBasket(
      [{ key: '0', item_id: 'i1', category_id: null, qty: 2, unit_price: 500, vat_rate: 21 }],
      [{ id: 'o1', name: '10% off', rule: { kind: 'percentage', percent: 10 }, item_ids: [], category_ids: [], min_basket: 0, channels: [], schedule: null }],
      { channel: 'online_ordering', weekday: 3, minute: 720 },
    );
    expect([priced.subtotal, priced.discount, priced.total]).toEqual([1000, 100, 900]);
    const discount = registerDiscount({ lineTotals: priced.lines.map((l) => l.total), tip: 0, fees: 0, paid: priced.total });
    expect(discount).toBe(0);
  });

  test('lines + tip + fees - discount = paid', () => {
    expect(registerDiscount({ lineTotals: [900, 450], tip: 100, fees: 250, paid: 1700 })).toBe(0);
    // A marketplace promotion on undiscounted lines: 2420 of goods, 1210 collected.
    expect(registerDiscount({ lineTotals: [2420], tip: 0, fees: 0, paid: 1210 })).toBe(1210);
    expect(registerDiscount({ lineTotals: [1000], tip: 50, fees: 300, paid: 1200 })).toBe(150);
  });

  test('lines below what was paid give no discount (never a negative one)', () => {
    expect(registerDiscount({ lineTotals: [800], tip: 0, fees: 0, paid: 900 })).toBe(0);
    expect(registerDiscount({ lineTotals: [], tip: 0, fees: 0, paid: 0 })).toBe(0);
  });
});
