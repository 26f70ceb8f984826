import { describe, expect, test } from 'bun:test';
import { paymentLines, signedPaymentType } from './payment-lines.ts';
import { settle } from './settle.ts';
import { DEMO_TENDERS } from './test-fixtures.ts';
import type { FrozenTender, TenderLegInput } from './types.ts';

function frozen(total: number, tenders: TenderLegInput[]): FrozenTender {
  const result = settle({ total, body: { kind: 'multi', tenders }, config: DEMO_TENDERS });
  if (!result.ok) throw new Error(`fixture refused: ${result.code}`);
  return result.tender;
}

describe('signedPaymentType', () => {
  test('maps every leg kind to its signed type', () => {
    expect(signedPaymentType({ kind: 'cash', amount: 1, tendered: 1, change: 0, rounding: 0 })).toBe('CASH');
    expect(signedPaymentType({ kind: 'card', funding: 'debit', amount: 1 })).toBe('CARD_DEBIT');
    expect(signedPaymentType({ kind: 'card', funding: 'credit', amount: 1 })).toBe('CARD_CREDIT');
    expect(signedPaymentType({ kind: 'meal_voucher', amount: 1 })).toBe('CHEQUE_MEAL');
    expect(signedPaymentType({ kind: 'gift_voucher', amount: 1 })).toBe('VOUCHER_STORE');
  });
});

describe('paymentLines', () => {
  test('cash without rounding is one CASH line', () => {
    expect(paymentLines(frozen(1000, [{ method: 'cash', amount_tendered: 2000 }]))).toEqual([
      { type: 'CASH', amountType: 'PAYMENT', amount: 1000, inputMethod: 'MANUAL' },
    ]);
  });

  test('rounded cash is followed by its ROUNDING line; the lines add up to the total', () => {
    expect(paymentLines(frozen(1003, [{ method: 'cash', amount_tendered: 1005 }]))).toEqual([
      { type: 'CASH', amountType: 'PAYMENT', amount: 1005, inputMethod: 'MANUAL' },
      { type: 'CASH', amountType: 'ROUNDING', amount: -2, inputMethod: 'AUTOMATIC' },
    ]);
    expect(paymentLines(frozen(1002, [{ method: 'cash' }]))).toEqual([
      { type: 'CASH', amountType: 'PAYMENT', amount: 1000, inputMethod: 'MANUAL' },
      { type: 'CASH', amountType: 'ROUNDING', amount: 2, inputMethod: 'AUTOMATIC' },
    ]);
  });

  test('a split in the order taken: ROUNDING right after CASH, provider only when an issuer is known', () => {
    const tender = frozen(4008, [
      { method: 'card', funding: 'debit', amount: 1000 },
      { method: 'cash', amount_tendered: 2000 },
      { method: 'card', funding: 'credit', amount: 1000 },
      { method: 'meal_voucher', amount: 500 },
      { method: 'gift_voucher', amount: 500 },
    ]);
    expect(paymentLines(tender)).toEqual([
      { type: 'CARD_DEBIT', amountType: 'PAYMENT', amount: 1000, inputMethod: 'MANUAL', provider: 'Bancontact' },
      { type: 'CASH', amountType: 'PAYMENT', amount: 1010, inputMethod: 'MANUAL' },
      { type: 'CASH', amountType: 'ROUNDING', amount: -2, inputMethod: 'AUTOMATIC' },
      { type: 'CARD_CREDIT', amountType: 'PAYMENT', amount: 1000, inputMethod: 'MANUAL' },
      { type: 'CHEQUE_MEAL', amountType: 'PAYMENT', amount: 500, inputMethod: 'MANUAL', provider: 'Pluxee' },
      { type: 'VOUCHER_STORE', amountType: 'PAYMENT', amount: 500, inputMethod: 'MANUAL' },
    ]);
    expect(paymentLines(tender).reduce((sum, line) => sum + line.amount, 0)).toBe(4008);
  });

  test('a picked issuer becomes the provider', () => {
    expect(paymentLines(frozen(700, [{ method: 'card', funding: 'credit', amount: 700, issuer: 'Visa' }]))).toEqual([
      { type: 'CARD_CREDIT', amountType: 'PAYMENT', amount: 700, inputMethod: 'MANUAL', provider: 'Visa' },
    ]);
  });

  test('a zero-total sale with no legs has no lines', () => {
    expect(paymentLines({ total: 0, legs: [], rounding: 0 })).toEqual([]);
  });

  test('is built from the frozen tender alone (a stored record, not a fresh settlement)', () => {
    const stored: FrozenTender = JSON.parse(
      '{"total":1252,"legs":[{"kind":"meal_voucher","amount":800,"issuer":"Pluxee"},{"kind":"cash","amount":450,"tendered":500,"change":50,"rounding":2}],"rounding":2,"amount_tendered":500,"change":50}',
    );
    expect(paymentLines(stored)).toEqual([
      { type: 'CHEQUE_MEAL', amountType: 'PAYMENT', amount: 800, inputMethod: 'MANUAL', provider: 'Pluxee' },
      { type: 'CASH', amountType: 'PAYMENT', amount: 450, inputMethod: 'MANUAL' },
      { type: 'CASH', amountType: 'ROUNDING', amount: 2, inputMethod: 'AUTOMATIC' },
    ]);
  });
});
