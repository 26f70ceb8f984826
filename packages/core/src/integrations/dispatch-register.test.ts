import { describe, expect, test } from 'bun:test';
import type { TransactionRow } from '../payments/transaction-records.ts';
import { orderTypeOf, registerOrderOf } from './dispatch-register.ts';

/** The register order built from a captured transaction's kitchen documents (pure: no I/O). */
const tx = (over: Partial<TransactionRow>): TransactionRow =>
  ({ id: 'tx-1', total: 0, tip_amount: 0, fees: 0, discount: 0, dining_option: null, customer_name: null, scheduled_for: null, ...over }) as TransactionRow;

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
    });
  });

  test('a remaining difference goes out as discount, never as a higher payment', () => {
    const o = registerOrderOf(tx({ total: 900, discount: 50 }), [{ name: 'Menu', qty: 1, total: 1000, modifiers: [] }]);
    expect([o.paid, o.discountTotal]).toEqual([900, 100]);
    const d = registerOrderOf(tx({ total: 950, discount: 50 }), [{ name: 'Menu', qty: 1, total: 1000, modifiers: [] }]);
    expect([d.paid, d.discountTotal]).toEqual([950, 50]);
  });

  test('documented order types only', () => {
    expect(['For Here', 'Eat in', 'Takeaway', 'Pickup', 'Delivery', null, 'Drive'].map((d) => orderTypeOf(d))).toEqual(['EAT_IN', 'EAT_IN', 'PICKUP', 'PICKUP', 'DELIVERY', 'UNKNOWN', 'UNKNOWN']);
  });
});
