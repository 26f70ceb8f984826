import { describe, expect, test } from 'bun:test';
import { prng } from '../testing/prng.ts';
import { countedLegs, salesByTender, TENDER_ROWS, type TenderedSale } from './sales-by-tender.ts';

const rows = (sales: readonly TenderedSale[]) => salesByTender(sales).map((r) => [r.label, r.amount, r.count]);

describe('salesByTender', () => {
  test('no sales: five zero rows in the fixed order', () => {
    expect(TENDER_ROWS).toEqual(['Cash', 'Card', 'Meal voucher', 'Gift voucher', 'Unknown']);
    expect(rows([])).toEqual([
      ['Cash', 0, 0],
      ['Card', 0, 0],
      ['Meal voucher', 0, 0],
      ['Gift voucher', 0, 0],
      ['Unknown', 0, 0],
    ]);
  });

  test('a split sale is counted per leg; cash at its amount plus the rounding', () => {
    // total 2503: card 1000, meal voucher 500, cash due 1003 rounded to 1005 (rounding -2)
    const split: TenderedSale = {
      total: 2503,
      tender: {
        total: 2503,
        legs: [
          { kind: 'card', funding: 'debit', amount: 1000, issuer: 'Bancontact' },
          { kind: 'meal_voucher', amount: 500 },
          { kind: 'cash', amount: 1005, tendered: 2000, change: 995, rounding: -2 },
        ],
        rounding: -2,
      },
    };
    const cashOnly: TenderedSale = { total: 452, tender: { legs: [{ kind: 'cash', amount: 450, tendered: 500, change: 50 }], rounding: 2 } };
    const gift: TenderedSale = { total: 1500, tender: { legs: [{ kind: 'gift_voucher', amount: 1000 }, { kind: 'card', funding: 'credit', amount: 500 }], rounding: 0 } };
    expect(rows([split, cashOnly, gift])).toEqual([
      ['Cash', 1003 + 452, 2],
      ['Card', 1500, 2],
      ['Meal voucher', 500, 1],
      ['Gift voucher', 1000, 1],
      ['Unknown', 0, 0],
    ]);
  });

  test('tender JSON text is read too; absent rounding reads 0', () => {
    expect(countedLegs({ total: 700, tender: JSON.stringify({ legs: [{ kind: 'card', amount: 700, funding: 'debit' }] }) })).toEqual([{ kind: 'card', amount: 700 }]);
  });

  test('malformed or not adding up: the whole total goes under Unknown', () => {
    const bad: TenderedSale[] = [
      { total: 100, tender: null },
      { total: 100, tender: 'not json' },
      { total: 100, tender: { legs: 'cash' } },
      { total: 100, tender: { legs: [{ amount: 100 }] } },
      { total: 100, tender: { legs: [{ kind: 'bitcoin', amount: 100 }] } },
      { total: 100, tender: { legs: [{ kind: 'cash', amount: 99.5 }], rounding: 0.5 } },
      { total: 100, tender: { legs: [{ kind: 'cash', amount: '100' }] } },
      { total: 100, tender: { legs: [{ kind: 'card', amount: 90 }] } },
      { total: 100, tender: { legs: [{ kind: 'card', amount: 98 }], rounding: 2 } }, // rounding without cash
      { total: 100, tender: { legs: [{ kind: 'card', amount: 150 }, { kind: 'cash', amount: -50 }] } },
      { total: 100, tender: { legs: ['cash'] } },
    ];
    for (const sale of bad) expect(countedLegs(sale)).toBeNull();
    const good: TenderedSale = { total: 300, tender: { legs: [{ kind: 'cash', amount: 300 }], rounding: 0 } };
    expect(rows([...bad, good])).toEqual([
      ['Cash', 300, 1],
      ['Card', 0, 0],
      ['Meal voucher', 0, 0],
      ['Gift voucher', 0, 0],
      ['Unknown', 1100, 11],
    ]);
  });

  test('a non-integer sale total is a RangeError', () => {
    expect(() => salesByTender([{ total: 1.5, tender: {} }])).toThrow(RangeError);
  });

  test('property: rows add up to the sum of sale totals', () => {
    const r = prng(9);
    const kinds = ['cash', 'card', 'meal_voucher', 'gift_voucher'];
    for (let i = 0; i < 500; i++) {
      const sales: TenderedSale[] = Array.from({ length: r.int(0, 30) }, () => {
        const legs = Array.from({ length: r.int(0, 3) }, () => ({ kind: r.bool(0.05) ? 'cheque' : r.pick(kinds), amount: r.int(0, 5000) }));
        const rounding = legs.some((l) => l.kind === 'cash') ? r.int(-2, 2) : 0;
        const sum = legs.reduce((s, l) => s + l.amount, 0) + rounding;
        return { total: r.bool(0.1) ? sum + 1 : sum, tender: { legs, rounding } };
      });
      const result = salesByTender(sales);
      expect(result.map((x) => x.label)).toEqual([...TENDER_ROWS]);
      expect(result.reduce((s, x) => s + x.amount, 0)).toBe(sales.reduce((s, x) => s + x.total, 0));
    }
  });
});
