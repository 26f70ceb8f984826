import { describe, expect, test } from 'bun:test';
import { registerDOrderOf } from './register-d-dispatch.ts';

describe('registerDOrderOf', () => {
  test('lines in cents with modifier names on the line, the subtotal of the lines, totals as captured', () => {
    const body = registerDOrderOf({
      orderId: 't-1',
      orderType: 'PICKUP',
      testOrder: false,
      channel: 'online_ordering',
      items: [],
      lines: [
        { name: 'Latte', quantity: 2, unitPrice: 380, modifiers: [{ name: 'Oat milk', price: 0 }, { name: 'Extra shot', price: 0 }] },
        { name: '3 x Cookie', quantity: 1, unitPrice: 500, modifiers: [] },
      ],
      paid: 1210,
      tip: 50,
      serviceCharge: 0,
      discountTotal: 100,
      customerName: 'x'.repeat(150),
      pickupTime: null,
    });
    expect(body).toEqual({
      channel: 'online_ordering',
      customer_name: 'x'.repeat(100),
      lines: [
        { name: 'Latte (Oat milk, Extra shot)', quantity: 2, unit_price: 380 },
        { name: '3 x Cookie', quantity: 1, unit_price: 500 },
      ],
      totals: { subtotal: 1260, tip: 50, service_charge: 0, discount: 100, total: 1210 },
    });
  });
});
