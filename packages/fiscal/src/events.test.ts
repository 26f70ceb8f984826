import { describe, expect, test } from 'bun:test';
import type { FrozenTender } from '@pos/tenders/types';
import { financialsFromTender, moneyInOutEvent, orderEvent, refundEvent, saleEvent } from './events.ts';
import { eventLabelOf, eventOperationOf, isTicketEvent } from './signer.ts';
import { fdmOperationOf } from './fdm-wire.ts';
import { SPLIT_TENDER, TEST_LINES, testCommon, testSale } from './test-fixtures.ts';

const pick = (lines: readonly { type: string; amountType: string; amount: number; inputMethod: string }[]) =>
  lines.map((l) => [l.type, l.amountType, l.amount, l.inputMethod]);

describe('payment lines', () => {
  test('follow the legs in order, the ROUNDING line right after CASH, keyed cards MANUAL', () => {
    const tender: FrozenTender = {
      total: 2003,
      legs: [
        { kind: 'cash', amount: 1005, tendered: 2000, change: 995, rounding: -2 },
        { kind: 'card', funding: 'credit', amount: 800 },
        { kind: 'meal_voucher', amount: 200, issuer: 'Pluxee' },
      ],
      rounding: -2,
    };
    const f = financialsFromTender(tender);
    expect(pick(f)).toEqual([
      ['CASH', 'PAYMENT', 1005, 'MANUAL'],
      ['CASH', 'ROUNDING', -2, 'AUTOMATIC'],
      ['CARD_CREDIT', 'PAYMENT', 800, 'MANUAL'],
      ['CHEQUE_MEAL', 'PAYMENT', 200, 'MANUAL'],
    ]);
    expect(f.map((l) => l.id)).toEqual(['1', '2', '3', '4']);
    expect(f[3]?.provider).toBe('Pluxee');
  });

  test('no ROUNDING line when nothing was rounded; the drawer rides on cash lines only', () => {
    const tender: FrozenTender = { total: 1000, legs: [{ kind: 'card', funding: 'debit', amount: 400 }, { kind: 'cash', amount: 600, tendered: 600, change: 0, rounding: 0 }], rounding: 0 };
    const f = financialsFromTender(tender, { drawerId: 'dr', drawerName: 'Drawer' });
    expect(pick(f)).toEqual([
      ['CARD_DEBIT', 'PAYMENT', 400, 'MANUAL'],
      ['CASH', 'PAYMENT', 600, 'MANUAL'],
    ]);
    expect(f[0]?.drawer).toBeUndefined();
    expect(f[1]?.drawer).toEqual({ drawerId: 'dr', drawerName: 'Drawer' });
  });
});

describe('sale and refund events', () => {
  test('a sale carries VAT-labelled lines and financials adding up to the total', () => {
    const sale = testSale();
    expect(sale.transaction.total).toBe(1003);
    expect(sale.transaction.lines.map((l) => l.vats[0]?.label)).toEqual(['A', 'C']);
    expect(pick(sale.financials)).toEqual([
      ['CARD_DEBIT', 'PAYMENT', 500, 'MANUAL'],
      ['CASH', 'PAYMENT', 505, 'MANUAL'],
      ['CASH', 'ROUNDING', -2, 'AUTOMATIC'],
    ]);
  });

  test('a sale whose lines and tender disagree is refused', () => {
    expect(() => saleEvent(testCommon(), TEST_LINES.slice(0, 1), SPLIT_TENDER)).toThrow(RangeError);
  });

  test('a refund negates quantities with reason REFUND and pays back one negative CASH line', () => {
    const refund = refundEvent(testCommon(), TEST_LINES.slice(0, 1));
    expect(refund.transaction.lines[0]).toMatchObject({ quantity: -2, negQuantityReason: 'REFUND', unitPrice: 250, lineTotal: -500, vats: [{ label: 'A', price: -500 }] });
    expect(refund.transaction.total).toBe(-500);
    expect(pick(refund.financials)).toEqual([['CASH', 'PAYMENT', -500, 'MANUAL']]);
  });

  test('till movements are signed by direction', () => {
    expect(moneyInOutEvent(testCommon(), 'paid_in', 1000).amount).toBe(1000);
    expect(moneyInOutEvent(testCommon(), 'float_issue', 1000).amount).toBe(1000);
    expect(moneyInOutEvent(testCommon(), 'paid_out', 1000).amount).toBe(-1000);
    expect(moneyInOutEvent(testCommon(), 'float_return', 1000).amount).toBe(-1000);
    expect(() => moneyInOutEvent(testCommon(), 'paid_in', -5)).toThrow(RangeError);
  });
});

describe('order events (a fire sent to the kitchen)', () => {
  const espresso = { productId: 'p-1', productName: 'Espresso', departmentId: 'd-1', departmentName: 'Drinks', unitPrice: 280, vatRate: 21 };
  test('sent lines are positive, taken-back lines negative CORRECTION; the total is their sum; nothing paid', () => {
    const e = orderEvent(testCommon(), [
      { ...espresso, quantity: 2 },
      { ...espresso, productId: 'p-2', quantity: -1, vatRate: 6 },
    ]);
    expect(e.kind).toBe('order');
    expect('financials' in e).toBe(false);
    expect(e.transaction.lines.map((l) => [l.productId, l.quantity, l.negQuantityReason ?? null, l.lineTotal, l.vats])).toEqual([
      ['p-1', 2, null, 560, [{ label: 'A', price: 560 }]],
      ['p-2', -1, 'CORRECTION', -280, [{ label: 'C', price: -280 }]],
    ]);
    expect(e.transaction.total).toBe(280);
    expect(eventLabelOf(e)).toBe('N');
    expect(eventOperationOf(e)).toBe('ORDER');
    expect(isTicketEvent(e)).toBe(false);
    expect(fdmOperationOf(e)).toBe('signOrder');
  });
  test('an order event needs lines with a non-zero whole quantity', () => {
    expect(() => orderEvent(testCommon(), [])).toThrow(RangeError);
    expect(() => orderEvent(testCommon(), [{ ...espresso, quantity: 0 }])).toThrow(RangeError);
    expect(() => orderEvent(testCommon(), [{ ...espresso, quantity: 1.5 }])).toThrow(RangeError);
  });
});
