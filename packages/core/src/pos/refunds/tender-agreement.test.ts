import { describe, expect, test } from 'bun:test';
import { allRecordedAtTill, tendersAgree, wholeCents } from './tender-agreement.ts';

const frozen = {
  total: 3200,
  rounding: 0,
  legs: [
    { kind: 'card', funding: 'debit', amount: 2000, issuer: 'Bancontact' },
    { kind: 'cash', amount: 1000, tendered: 2000, change: 1000, rounding: 0 },
    { kind: 'meal_voucher', amount: 200, issuer: 'Pluxee' },
  ],
  amount_tendered: 2000,
  change: 1000,
};
const snapshot = [
  { method: 'card', funding: 'debit', amount: 2000, issuer: 'Bancontact' },
  { method: 'cash', amount: 1000 },
  { method: 'meal_voucher', amount: 200, issuer: 'Pluxee' },
];

describe('tendersAgree', () => {
  test('the same payments agree', () => {
    expect(tendersAgree(frozen, snapshot)).toBe(true);
  });

  test('payment order, key order and whole-cent decimals are ignored', () => {
    const reordered = [
      { amount: '200.00', issuer: 'Pluxee', method: 'meal_voucher' },
      { amount: 1000.0, method: 'cash' },
      { issuer: 'Bancontact', amount: '2000.0', funding: 'debit', method: 'card' },
    ];
    expect(tendersAgree(frozen, reordered)).toBe(true);
    expect(tendersAgree(JSON.stringify(frozen), JSON.stringify(reordered))).toBe(true);
    expect(tendersAgree({ legs: [{ kind: 'cash', amount: '3200.0' }] }, [{ method: 'cash', amount: 3200 }])).toBe(true);
  });

  test('a different amount, method, funding or issuer disagrees', () => {
    const change = (i: number, patch: Record<string, unknown>) => snapshot.map((l, j) => (j === i ? { ...l, ...patch } : l));
    expect(tendersAgree(frozen, change(1, { amount: 1005 }))).toBe(false);
    expect(tendersAgree(frozen, change(0, { funding: 'credit' }))).toBe(false);
    expect(tendersAgree(frozen, change(0, { issuer: 'Visa' }))).toBe(false);
    expect(tendersAgree(frozen, change(2, { method: 'gift_voucher' }))).toBe(false);
    expect(tendersAgree(frozen, change(1, { amount: 1000.5 }))).toBe(false);
    expect(tendersAgree(frozen, change(1, { amount: '10.00' }))).toBe(false);
  });

  test('a missing or extra payment disagrees, duplicates count', () => {
    expect(tendersAgree(frozen, snapshot.slice(0, 2))).toBe(false);
    expect(tendersAgree(frozen, [...snapshot, { method: 'cash', amount: 0 }])).toBe(false);
    const twoCash = { legs: [{ kind: 'cash', amount: 100 }, { kind: 'cash', amount: 100 }] };
    expect(tendersAgree(twoCash, [{ method: 'cash', amount: 100 }, { method: 'cash', amount: 100 }])).toBe(true);
    expect(tendersAgree(twoCash, [{ method: 'cash', amount: 100 }, { method: 'cash', amount: 200 }])).toBe(false);
  });

  test('an absent issuer equals a null one; funding matters only on cards', () => {
    expect(tendersAgree({ legs: [{ kind: 'gift_voucher', amount: 500 }] }, [{ method: 'gift_voucher', amount: 500, issuer: null }])).toBe(true);
    expect(tendersAgree({ legs: [{ kind: 'cash', amount: 500 }] }, [{ method: 'cash', amount: 500, funding: 'debit' }])).toBe(true);
    expect(tendersAgree({ legs: [{ kind: 'card', funding: 'debit', amount: 500 }] }, [{ method: 'card', amount: 500 }])).toBe(false);
  });

  test('unreadable records never agree', () => {
    for (const [a, b] of [
      [null, snapshot],
      [frozen, null],
      [{ legs: 'x' }, []],
      [frozen, { legs: snapshot }],
      ['{not json', snapshot],
      [{ legs: [{ amount: 100 }] }, [{ amount: 100 }]],
      [{ legs: [{ kind: 'cash', amount: 100, issuer: 7 }] }, [{ method: 'cash', amount: 100 }]],
    ] as const) {
      expect(tendersAgree(a, b)).toBe(false);
    }
    expect(tendersAgree({ legs: [] }, [])).toBe(true);
  });
});

describe('wholeCents', () => {
  test('numbers and numeric text of whole cents', () => {
    expect([3200, 3200.0, '3200', '3200.0', '3200.00', ' 15 ', '-5'].map(wholeCents)).toEqual([3200, 3200, 3200, 3200, 3200, 15, -5]);
    expect([3200.5, '3200.5', '32,00', '', null, undefined, NaN, Infinity, '1e3'].map(wholeCents)).toEqual([null, null, null, null, null, null, null, null, null]);
  });
});

describe('allRecordedAtTill', () => {
  test('cash, keyed card and vouchers are recorded at the till; anything else is not', () => {
    expect(allRecordedAtTill(snapshot)).toBe(true);
    expect(allRecordedAtTill([...snapshot, { method: 'gift_voucher', amount: 1 }])).toBe(true);
    expect(allRecordedAtTill([{ method: 'online', amount: 100 }])).toBe(false);
    expect(allRecordedAtTill('nope')).toBe(false);
  });
});
