import { describe, expect, test } from 'bun:test';
import { TENDER_MESSAGES } from './refusal-messages.ts';
import { settle } from './settle.ts';
import { CASH_ONLY_TENDERS, DEMO_TENDERS } from './test-fixtures.ts';
import type { PosTenders, SettleResult, TenderLegInput, TenderRefusalCode } from './types.ts';

const legacy = (total: number, amount_tendered: number, config: PosTenders = DEMO_TENDERS): SettleResult =>
  settle({ total, body: { kind: 'legacy', amount_tendered }, config });

const multi = (total: number, tenders: TenderLegInput[], config: PosTenders = DEMO_TENDERS): SettleResult =>
  settle({ total, body: { kind: 'multi', tenders }, config });

const refused = (code: TenderRefusalCode, field?: string): SettleResult =>
  field === undefined
    ? { ok: false, code, message: TENDER_MESSAGES[code] }
    : { ok: false, code, message: TENDER_MESSAGES[code], field };

describe('TENDER_MESSAGES', () => {
  test('every message is verbatim from spec 2 rule 7 (plus the card one)', () => {
    expect(TENDER_MESSAGES).toEqual({
      method_not_enabled: 'This register does not take this payment method.',
      not_covered: 'The payments do not cover the sale yet.',
      voucher_overpays: 'A voucher cannot pay more than the amount still due — it gives no change and is never rounded.',
      card_overpays: 'A card cannot pay more than the amount still due — it gives no change.',
      cash_not_needed: 'The other payments already settle this sale — remove the cash payment.',
      cash_short: 'Cash tendered is less than the cash still due.',
      card_funding_missing: 'Say whether the card was a debit card or a credit card.',
      multiple_cash_legs: 'Take all the cash as one payment.',
      issuer_not_configured: 'This issuer is not set up for this payment method at this location.',
      negative_total: 'A sale cannot have a negative total — use a refund.',
    });
  });
});

describe('negative total', () => {
  test('is refused before anything else, without a field', () => {
    expect(legacy(-1, 0)).toEqual({
      ok: false,
      code: 'negative_total',
      message: 'A sale cannot have a negative total — use a refund.',
    });
    expect(multi(-500, [{ method: 'bitcoin' }])).toEqual(refused('negative_total'));
  });
});

describe('legacy body (one cash leg)', () => {
  test('exact total with change', () => {
    expect(legacy(1000, 2000)).toEqual({
      ok: true,
      tender: {
        total: 1000,
        legs: [{ kind: 'cash', amount: 1000, tendered: 2000, change: 1000, rounding: 0 }],
        rounding: 0,
        amount_tendered: 2000,
        change: 1000,
      },
    });
  });

  test('rounded up: 10.03 is 10.05 in cash, rounding -2', () => {
    expect(legacy(1003, 1005)).toEqual({
      ok: true,
      tender: {
        total: 1003,
        legs: [{ kind: 'cash', amount: 1005, tendered: 1005, change: 0, rounding: -2 }],
        rounding: -2,
        amount_tendered: 1005,
        change: 0,
      },
    });
  });

  test('rounded down: 10.02 is 10.00 in cash, rounding 2', () => {
    expect(legacy(1002, 1000)).toEqual({
      ok: true,
      tender: {
        total: 1002,
        legs: [{ kind: 'cash', amount: 1000, tendered: 1000, change: 0, rounding: 2 }],
        rounding: 2,
        amount_tendered: 1000,
        change: 0,
      },
    });
  });

  test('a cash-only sale of 1-4 cents is not rounded', () => {
    for (const total of [1, 2, 3, 4]) {
      expect(legacy(total, 5)).toEqual({
        ok: true,
        tender: {
          total,
          legs: [{ kind: 'cash', amount: total, tendered: 5, change: 5 - total, rounding: 0 }],
          rounding: 0,
          amount_tendered: 5,
          change: 5 - total,
        },
      });
    }
    expect(legacy(3, 2)).toEqual(refused('cash_short', 'amount_tendered'));
  });

  test('tendered below the rounded cash due is short; the field is amount_tendered', () => {
    expect(legacy(1003, 1004)).toEqual({
      ok: false,
      code: 'cash_short',
      message: 'Cash tendered is less than the cash still due.',
      field: 'amount_tendered',
    });
    expect(legacy(1000, 999)).toEqual(refused('cash_short', 'amount_tendered'));
  });

  test('works on a cash-only location', () => {
    expect(legacy(450, 500, CASH_ONLY_TENDERS).ok).toBe(true);
  });
});

describe('zero-total sale', () => {
  test('settles with no legs', () => {
    expect(multi(0, [])).toEqual({ ok: true, tender: { total: 0, legs: [], rounding: 0 } });
  });

  test('settles with a cash leg of 0', () => {
    const cash0: SettleResult = {
      ok: true,
      tender: {
        total: 0,
        legs: [{ kind: 'cash', amount: 0, tendered: 0, change: 0, rounding: 0 }],
        rounding: 0,
        amount_tendered: 0,
        change: 0,
      },
    };
    expect(multi(0, [{ method: 'cash', amount: 0 }])).toEqual(cash0);
    expect(multi(0, [{ method: 'cash' }])).toEqual(cash0);
    expect(legacy(0, 0)).toEqual(cash0);
  });

  test('a card or voucher has nothing to pay', () => {
    expect(multi(0, [{ method: 'card', funding: 'debit' }])).toEqual(refused('card_overpays', 'tenders.0.amount'));
    expect(multi(0, [{ method: 'gift_voucher', amount: 100 }])).toEqual(refused('voucher_overpays', 'tenders.0.amount'));
  });

  test('no legs on a sale with a total does not cover it', () => {
    expect(multi(100, [])).toEqual(refused('not_covered', 'tenders'));
  });
});

describe('methods', () => {
  test('cash is always enabled', () => {
    expect(multi(500, [{ method: 'cash', amount_tendered: 500 }], CASH_ONLY_TENDERS).ok).toBe(true);
  });

  test('a method the location did not enable is refused', () => {
    for (const method of ['card', 'meal_voucher', 'gift_voucher']) {
      expect(multi(500, [{ method, funding: 'debit', amount: 500 }], CASH_ONLY_TENDERS)).toEqual({
        ok: false,
        code: 'method_not_enabled',
        message: 'This register does not take this payment method.',
        field: 'tenders.0.method',
      });
    }
  });

  test('an unknown method is refused the same way (exact spelling only)', () => {
    for (const method of ['bitcoin', 'Cash', 'CARD', '', 'cheque']) {
      expect(multi(500, [{ method, amount: 500 }])).toEqual(refused('method_not_enabled', 'tenders.0.method'));
    }
  });

  test('only the enabled subset is taken', () => {
    const cardOnly: PosTenders = { ...CASH_ONLY_TENDERS, enabled: ['card'] };
    expect(multi(500, [{ method: 'card', funding: 'credit', amount: 500 }], cardOnly).ok).toBe(true);
    expect(multi(500, [{ method: 'meal_voucher', amount: 500 }], cardOnly)).toEqual(
      refused('method_not_enabled', 'tenders.0.method'),
    );
  });
});

describe('card legs', () => {
  test('debit with the one configured issuer signed automatically', () => {
    expect(multi(1250, [{ method: 'card', funding: 'debit', amount: 1250 }])).toEqual({
      ok: true,
      tender: {
        total: 1250,
        legs: [{ kind: 'card', funding: 'debit', amount: 1250, issuer: 'Bancontact' }],
        rounding: 0,
      },
    });
  });

  test('a card is never rounded', () => {
    expect(multi(1253, [{ method: 'card', funding: 'credit', amount: 1253, issuer: 'Visa' }])).toEqual({
      ok: true,
      tender: { total: 1253, legs: [{ kind: 'card', funding: 'credit', amount: 1253, issuer: 'Visa' }], rounding: 0 },
    });
  });

  test('credit with several issuers and no pick omits the issuer', () => {
    expect(multi(1253, [{ method: 'card', funding: 'credit', amount: 1253 }])).toEqual({
      ok: true,
      tender: { total: 1253, legs: [{ kind: 'card', funding: 'credit', amount: 1253 }], rounding: 0 },
    });
    expect(multi(1253, [{ method: 'card', funding: 'credit', amount: 1253, issuer: '  ' }])).toEqual({
      ok: true,
      tender: { total: 1253, legs: [{ kind: 'card', funding: 'credit', amount: 1253 }], rounding: 0 },
    });
  });

  test('without amount, as the last leg, it pays what is still due', () => {
    expect(multi(1000, [{ method: 'meal_voucher', amount: 800 }, { method: 'card', funding: 'debit' }])).toEqual({
      ok: true,
      tender: {
        total: 1000,
        legs: [
          { kind: 'meal_voucher', amount: 800, issuer: 'Pluxee' },
          { kind: 'card', funding: 'debit', amount: 200, issuer: 'Bancontact' },
        ],
        rounding: 0,
      },
    });
  });

  test('funding missing, null or not debit/credit', () => {
    const expected: SettleResult = {
      ok: false,
      code: 'card_funding_missing',
      message: 'Say whether the card was a debit card or a credit card.',
      field: 'tenders.1.funding',
    };
    for (const funding of [undefined, null, '', 'prepaid', 'Debit', 'unknown']) {
      expect(multi(1000, [{ method: 'meal_voucher', amount: 500 }, { method: 'card', funding, amount: 500 }])).toEqual(
        expected,
      );
    }
  });

  test('a card paying more than is still due is refused (cards give no change)', () => {
    expect(multi(1000, [{ method: 'card', funding: 'debit', amount: 1001 }])).toEqual({
      ok: false,
      code: 'card_overpays',
      message: 'A card cannot pay more than the amount still due — it gives no change.',
      field: 'tenders.0.amount',
    });
    expect(
      multi(1000, [
        { method: 'meal_voucher', amount: 600 },
        { method: 'card', funding: 'credit', amount: 500 },
      ]),
    ).toEqual(refused('card_overpays', 'tenders.1.amount'));
  });

  test('a card without amount after the sale is paid has nothing to pay', () => {
    expect(multi(1000, [{ method: 'meal_voucher', amount: 1000 }, { method: 'card', funding: 'debit' }])).toEqual(
      refused('card_overpays', 'tenders.1.amount'),
    );
    // Without amount a card takes everything due, so it can only be the last paying leg.
    expect(multi(1000, [{ method: 'card', funding: 'debit' }, { method: 'meal_voucher', amount: 200 }])).toEqual(
      refused('voucher_overpays', 'tenders.1.amount'),
    );
  });
});

describe('issuers (rule 6)', () => {
  test('a configured pick is signed, trimmed', () => {
    expect(multi(900, [{ method: 'card', funding: 'credit', amount: 900, issuer: ' Mastercard ' }])).toEqual({
      ok: true,
      tender: { total: 900, legs: [{ kind: 'card', funding: 'credit', amount: 900, issuer: 'Mastercard' }], rounding: 0 },
    });
  });

  test('a pick must be configured for that instrument', () => {
    const expected: SettleResult = {
      ok: false,
      code: 'issuer_not_configured',
      message: 'This issuer is not set up for this payment method at this location.',
      field: 'tenders.0.issuer',
    };
    expect(multi(900, [{ method: 'card', funding: 'credit', amount: 900, issuer: 'Amex' }])).toEqual(expected);
    // Bancontact is a debit issuer, not a credit one.
    expect(multi(900, [{ method: 'card', funding: 'credit', amount: 900, issuer: 'Bancontact' }])).toEqual(expected);
    expect(multi(900, [{ method: 'card', funding: 'debit', amount: 900, issuer: 'visa' }])).toEqual(expected);
    expect(multi(900, [{ method: 'meal_voucher', amount: 900, issuer: 'Edenred' }])).toEqual(expected);
    // No gift voucher issuer is configured, so no pick can match.
    expect(multi(900, [{ method: 'gift_voucher', amount: 900, issuer: 'Shop' }])).toEqual(expected);
  });

  test('exactly one configured issuer is used without a pick; none configured omits it', () => {
    expect(
      multi(1500, [
        { method: 'meal_voucher', amount: 1000 },
        { method: 'gift_voucher', amount: 500 },
      ]),
    ).toEqual({
      ok: true,
      tender: {
        total: 1500,
        legs: [
          { kind: 'meal_voucher', amount: 1000, issuer: 'Pluxee' },
          { kind: 'gift_voucher', amount: 500 },
        ],
        rounding: 0,
      },
    });
  });

  test('a cash leg has no issuer to pick', () => {
    expect(multi(500, [{ method: 'cash', amount_tendered: 500, issuer: 'Bank' }])).toEqual(
      refused('issuer_not_configured', 'tenders.0.issuer'),
    );
    expect(multi(500, [{ method: 'cash', amount_tendered: 500, issuer: null }]).ok).toBe(true);
  });
});

describe('vouchers', () => {
  test('a voucher paying more than is still due is refused', () => {
    expect(multi(1000, [{ method: 'meal_voucher', amount: 1200 }])).toEqual({
      ok: false,
      code: 'voucher_overpays',
      message: 'A voucher cannot pay more than the amount still due — it gives no change and is never rounded.',
      field: 'tenders.0.amount',
    });
    expect(
      multi(1000, [
        { method: 'meal_voucher', amount: 600 },
        { method: 'gift_voucher', amount: 500 },
      ]),
    ).toEqual(refused('voucher_overpays', 'tenders.1.amount'));
  });

  test('a voucher is never rounded and may leave cents to cash', () => {
    expect(multi(1003, [{ method: 'meal_voucher', amount: 1001 }, { method: 'cash', amount_tendered: 5 }])).toEqual({
      ok: true,
      tender: {
        total: 1003,
        legs: [
          { kind: 'meal_voucher', amount: 1001, issuer: 'Pluxee' },
          { kind: 'cash', amount: 2, tendered: 5, change: 3, rounding: 0 },
        ],
        rounding: 0,
        amount_tendered: 5,
        change: 3,
      },
    });
  });
});

describe('cash in a split', () => {
  test('card then cash: only the cash share is rounded, change on cash only', () => {
    expect(multi(2503, [{ method: 'card', funding: 'debit', amount: 1000 }, { method: 'cash', amount_tendered: 2000 }])).toEqual({
      ok: true,
      tender: {
        total: 2503,
        legs: [
          { kind: 'card', funding: 'debit', amount: 1000, issuer: 'Bancontact' },
          { kind: 'cash', amount: 1505, tendered: 2000, change: 495, rounding: -2 },
        ],
        rounding: -2,
        amount_tendered: 2000,
        change: 495,
      },
    });
  });

  test('cash without amount pays what remains after all non-cash legs, wherever it stands', () => {
    expect(
      multi(3007, [
        { method: 'cash', amount_tendered: 1100 },
        { method: 'meal_voucher', amount: 1000 },
        { method: 'card', funding: 'credit', amount: 1000, issuer: 'Visa' },
      ]),
    ).toEqual({
      ok: true,
      tender: {
        total: 3007,
        legs: [
          { kind: 'cash', amount: 1005, tendered: 1100, change: 95, rounding: 2 },
          { kind: 'meal_voucher', amount: 1000, issuer: 'Pluxee' },
          { kind: 'card', funding: 'credit', amount: 1000, issuer: 'Visa' },
        ],
        rounding: 2,
        amount_tendered: 1100,
        change: 95,
      },
    });
  });

  test('cash without amount_tendered is exact money', () => {
    expect(multi(1003, [{ method: 'gift_voucher', amount: 500 }, { method: 'cash' }])).toEqual({
      ok: true,
      tender: {
        total: 1003,
        legs: [
          { kind: 'gift_voucher', amount: 500 },
          { kind: 'cash', amount: 505, tendered: 505, change: 0, rounding: -2 },
        ],
        rounding: -2,
        amount_tendered: 505,
        change: 0,
      },
    });
  });

  test('a cash share under 5 cents is never rounded', () => {
    expect(multi(1004, [{ method: 'card', funding: 'debit', amount: 1002 }, { method: 'cash', amount_tendered: 2 }])).toEqual({
      ok: true,
      tender: {
        total: 1004,
        legs: [
          { kind: 'card', funding: 'debit', amount: 1002, issuer: 'Bancontact' },
          { kind: 'cash', amount: 2, tendered: 2, change: 0, rounding: 0 },
        ],
        rounding: 0,
        amount_tendered: 2,
        change: 0,
      },
    });
  });

  test('a stated cash share first, the card pays the rest', () => {
    expect(
      multi(1500, [
        { method: 'cash', amount: 1000, amount_tendered: 2000 },
        { method: 'card', funding: 'credit', issuer: 'Visa' },
      ]),
    ).toEqual({
      ok: true,
      tender: {
        total: 1500,
        legs: [
          { kind: 'cash', amount: 1000, tendered: 2000, change: 1000, rounding: 0 },
          { kind: 'card', funding: 'credit', amount: 500, issuer: 'Visa' },
        ],
        rounding: 0,
        amount_tendered: 2000,
        change: 1000,
      },
    });
  });

  test('a stated cash share above what is still due is capped (the rest is change)', () => {
    expect(multi(1000, [{ method: 'meal_voucher', amount: 600 }, { method: 'cash', amount: 500, amount_tendered: 500 }])).toEqual({
      ok: true,
      tender: {
        total: 1000,
        legs: [
          { kind: 'meal_voucher', amount: 600, issuer: 'Pluxee' },
          { kind: 'cash', amount: 400, tendered: 500, change: 100, rounding: 0 },
        ],
        rounding: 0,
        amount_tendered: 500,
        change: 100,
      },
    });
  });

  test('a stated cash share is rounded like any cash share', () => {
    expect(multi(1003, [{ method: 'cash', amount: 1003, amount_tendered: 1005 }])).toEqual({
      ok: true,
      tender: {
        total: 1003,
        legs: [{ kind: 'cash', amount: 1005, tendered: 1005, change: 0, rounding: -2 }],
        rounding: -2,
        amount_tendered: 1005,
        change: 0,
      },
    });
  });

  test('at most one cash leg', () => {
    expect(
      multi(1000, [
        { method: 'cash', amount: 500, amount_tendered: 500 },
        { method: 'cash', amount: 500, amount_tendered: 500 },
      ]),
    ).toEqual({
      ok: false,
      code: 'multiple_cash_legs',
      message: 'Take all the cash as one payment.',
      field: 'tenders.1.method',
    });
  });

  test('cash when the other payments already settle the sale', () => {
    const expected = (field: string): SettleResult => ({
      ok: false,
      code: 'cash_not_needed',
      message: 'The other payments already settle this sale — remove the cash payment.',
      field,
    });
    expect(multi(1000, [{ method: 'card', funding: 'debit', amount: 1000 }, { method: 'cash', amount_tendered: 500 }])).toEqual(
      expected('tenders.1'),
    );
    expect(multi(1000, [{ method: 'cash', amount_tendered: 500 }, { method: 'card', funding: 'debit', amount: 1000 }])).toEqual(
      expected('tenders.0'),
    );
    expect(multi(1000, [{ method: 'card', funding: 'debit', amount: 1000 }, { method: 'cash', amount: 0 }])).toEqual(
      expected('tenders.1'),
    );
    // A stated share of 0 that a later card made redundant: its tender would only be change.
    expect(
      multi(1000, [{ method: 'cash', amount: 0, amount_tendered: 500 }, { method: 'card', funding: 'debit' }]),
    ).toEqual(expected('tenders.0'));
    // An unstated cash leg pays what the non-cash legs leave: here a remainder card left nothing.
    expect(multi(1500, [{ method: 'cash', amount_tendered: 1000 }, { method: 'card', funding: 'debit' }])).toEqual(
      expected('tenders.0'),
    );
  });

  test('cash tendered short in a split points at that leg', () => {
    expect(multi(2503, [{ method: 'card', funding: 'debit', amount: 1000 }, { method: 'cash', amount_tendered: 1504 }])).toEqual({
      ok: false,
      code: 'cash_short',
      message: 'Cash tendered is less than the cash still due.',
      field: 'tenders.1.amount_tendered',
    });
    expect(
      multi(2503, [{ method: 'card', funding: 'debit', amount: 1000 }, { method: 'cash', amount_tendered: 1505 }]).ok,
    ).toBe(true);
  });
});

describe('coverage', () => {
  test('legs that do not reach the total', () => {
    expect(multi(1000, [{ method: 'meal_voucher', amount: 500 }])).toEqual({
      ok: false,
      code: 'not_covered',
      message: 'The payments do not cover the sale yet.',
      field: 'tenders',
    });
    expect(multi(1000, [{ method: 'cash', amount: 500, amount_tendered: 500 }])).toEqual(refused('not_covered', 'tenders'));
    expect(
      multi(1000, [
        { method: 'cash', amount: 300, amount_tendered: 300 },
        { method: 'card', funding: 'debit', amount: 300 },
      ]),
    ).toEqual(refused('not_covered', 'tenders'));
  });

  test('a cash share of 0 beside legs that do not cover the sale is not covered, not unneeded cash', () => {
    expect(multi(1000, [{ method: 'cash', amount: 0 }, { method: 'meal_voucher', amount: 300 }])).toEqual(
      refused('not_covered', 'tenders'),
    );
  });

  test('not covered is reported before cash short', () => {
    expect(multi(1000, [{ method: 'cash', amount: 500, amount_tendered: 100 }])).toEqual(refused('not_covered', 'tenders'));
  });
});

describe('order of refusals and legs', () => {
  test('legs keep the order taken', () => {
    const result = multi(4000, [
      { method: 'gift_voucher', amount: 1000 },
      { method: 'card', funding: 'credit', amount: 1000 },
      { method: 'cash', amount_tendered: 1000 },
      { method: 'meal_voucher', amount: 1000 },
    ]);
    expect(result.ok && result.tender.legs.map((leg) => leg.kind)).toEqual(['gift_voucher', 'card', 'cash', 'meal_voucher']);
  });

  test('a per-leg check on a later leg wins over an amount problem on an earlier one', () => {
    expect(multi(1000, [{ method: 'meal_voucher', amount: 5000 }, { method: 'bitcoin' }])).toEqual(
      refused('method_not_enabled', 'tenders.1.method'),
    );
  });

  test('per-leg checks run in leg order', () => {
    expect(multi(1000, [{ method: 'card', amount: 1000 }, { method: 'bitcoin' }])).toEqual(
      refused('card_funding_missing', 'tenders.0.funding'),
    );
  });
});

describe('caller bugs', () => {
  test('amounts that are not whole non-negative cents throw RangeError', () => {
    expect(() => legacy(10.5, 100)).toThrow(RangeError);
    expect(() => legacy(1000, -1)).toThrow(RangeError);
    expect(() => legacy(1000, 10.5)).toThrow(RangeError);
    expect(() => multi(1000, [{ method: 'card', funding: 'debit', amount: -5 }])).toThrow(RangeError);
    expect(() => multi(1000, [{ method: 'cash', amount_tendered: Number.NaN }])).toThrow(RangeError);
  });
});
