import { describe, expect, test } from 'bun:test';
import { priceBasket } from '@pos/domain/catalog/pricing';
import type { TransactionRow } from '../payments/transaction-records.ts';
import { orderTypeOf, registerOrderOf } from './dispatch-register.ts';

/** The register order built from a captured transaction's kitchen documents (pure: no I/O). */
const tx = (over: Partial<TransactionRow>): TransactionRow =>
  ({ id: 'tx-1', total: 0, tip_amount: 0, fees: 0, discount: 0, dining_option: null, customer_name: null, scheduled_for: null, is_test: false, ...over }) as TransactionRow;

describe('registerOrderOf', () => {
  test('quantity x unit price when the line total divides; one line of the total otherwise; modifiers by name', () => {
    const o = registerOrderOf(tx({ total: 1000 + 1001 + 150, tip_amount: 150, dining_option: 'Takeaway', customer_name: 'Ann' }), [
      { name: 'Burger', qty: 2, total: 1000, modifiers: [{ name: 'Cheese', price: 100 }] },
      { name: 'Soda', qty: 3, total: 1001, modifiers: [] },
    ]);
    expect(o).toEqual({
      orderId: 'tx-1',
      orderType: 'PICKUP',
      lines: [
        { name: 'Burger', quantity: 2, unitPrice: 500, modifiers: [{ name: 'Cheese', price: 0 }] },
        { name: '3 x Soda', quantity: 1, unitPrice: 1001, modifiers: [] },
      ],
      paid: 2151,
      tip: 150,
      serviceCharge: 0,
      discountTotal: 0,
      customerName: 'Ann',
      pickupTime: null,
      testOrder: false,
    });
  });

  test('a remaining difference goes out as discount, never as a higher payment', () => {
    const o = registerOrderOf(tx({ total: 900, discount: 50 }), [{ name: 'Menu', qty: 1, total: 1000, modifiers: [] }]);
    expect([o.paid, o.discountTotal]).toEqual([900, 100]);
    const d = registerOrderOf(tx({ total: 950, discount: 50 }), [{ name: 'Menu', qty: 1, total: 1000, modifiers: [] }]);
    expect([d.paid, d.discountTotal]).toEqual([950, 50]);
  });

  test('the offer discount is not subtracted twice (the register sale equals the amount paid)', () => {
    // Kitchen line totals (from transaction_lines.total) are AFTER the offer; the transaction's discount is that same offer.
    const priced = priceBasket(
      [{ key: '0', item_id: 'i1', category_id: null, qty: 2, unit_price: 500, vat_rate: 21 }],
      [{ id: 'o1', name: '10% off', rule: { kind: 'percentage', percent: 10 }, item_ids: [], category_ids: [], min_basket: 0, channels: [], schedule: null }],
      { channel: 'online_ordering', weekday: 3, minute: 720 },
    );
    expect([priced.subtotal, priced.discount, priced.total]).toEqual([1000, 100, 900]);
    const o = registerOrderOf(tx({ total: priced.total, discount: priced.discount, dining_option: 'Pickup' }), priced.lines.map((l) => ({ name: 'Burger', qty: l.qty, total: l.total, modifiers: [] })));
    const lines = o.lines.reduce((s, l) => s + l.quantity * l.unitPrice, 0);
    expect({ lines, discountTotal: o.discountTotal, paid: o.paid }).toEqual({ lines: 900, discountTotal: 0, paid: 900 });
    expect(lines + o.tip + o.serviceCharge - o.discountTotal).toBe(o.paid);
  });

  test('a payment test-mode transaction goes out as a test order', () => {
    expect(registerOrderOf(tx({ total: 500, is_test: true }), [{ name: 'Menu', qty: 1, total: 500, modifiers: [] }]).testOrder).toBe(true);
    expect(registerOrderOf(tx({ total: 500 }), [{ name: 'Menu', qty: 1, total: 500, modifiers: [] }]).testOrder).toBe(false);
  });

  test('documented order types only', () => {
    expect(['For Here', 'Eat in', 'Takeaway', 'Pickup', 'Delivery', null, 'Drive'].map((d) => orderTypeOf(d))).toEqual(['EAT_IN', 'EAT_IN', 'PICKUP', 'PICKUP', 'DELIVERY', 'UNKNOWN', 'UNKNOWN']);
  });
});
