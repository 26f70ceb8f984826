import { expect, test } from 'bun:test';
import * as tenders from './index.ts';

test('the package entry exposes the engine', () => {
  expect(Object.keys(tenders).sort()).toEqual([
    'CASH_ONLY',
    'CASH_ROUNDING_FLOOR',
    'CONFIGURABLE_METHODS',
    'ISSUER_INSTRUMENTS',
    'MAX_ISSUER_LENGTH',
    'MAX_TENDER_LEGS',
    'TENDER_MESSAGES',
    'issuerInstrument',
    'normalisePosTenders',
    'parseSettleBody',
    'paymentLines',
    'resolveIssuer',
    'roundCash',
    'settle',
    'signedPaymentType',
  ]);
});

test('parse, settle and sign end to end', () => {
  const config = tenders.normalisePosTenders({ enabled: ['meal_voucher'], issuers: { meal_voucher: ['Pluxee'] } });
  const parsed = tenders.parseSettleBody({ tenders: [{ method: 'meal_voucher', amount: 800 }, { method: 'cash', amount_tendered: 500 }] });
  if (!parsed.ok) throw new Error('parse failed');
  const settled = tenders.settle({ total: 1252, body: parsed.input, config });
  if (!settled.ok) throw new Error(settled.message);
  expect(tenders.paymentLines(settled.tender)).toEqual([
    { type: 'CHEQUE_MEAL', amountType: 'PAYMENT', amount: 800, inputMethod: 'MANUAL', provider: 'Pluxee' },
    { type: 'CASH', amountType: 'PAYMENT', amount: 450, inputMethod: 'MANUAL' },
    { type: 'CASH', amountType: 'ROUNDING', amount: 2, inputMethod: 'AUTOMATIC' },
  ]);
});
