import { describe, expect, test } from 'bun:test';
import { vatGroup } from '../orders/order-totals.ts';
import { prng } from '../testing/prng.ts';
import { turnoverCents, userTurnoversCents, xReport, zReport, type ReportRefund, type ReportSale } from './x-report.ts';

const alice = { staff_id: 's-alice', staff_name: 'Alice' };
const bob = { staff_id: 's-bob', staff_name: 'Bob' };

// 1040: 500 at 21 % + 540 at 6 %, paid card 540 + cash 500
const sale1: ReportSale = {
  total: 1040,
  by_vat_rate: [vatGroup(21, 500), vatGroup(6, 540)],
  tender: { legs: [{ kind: 'card', funding: 'debit', amount: 540 }, { kind: 'cash', amount: 500, tendered: 500, change: 0 }], rounding: 0 },
  ...alice,
};
// 452 at 21 %, cash 450 + rounding 2
const sale2: ReportSale = {
  total: 452,
  by_vat_rate: [vatGroup(21, 452)],
  tender: { legs: [{ kind: 'cash', amount: 450, tendered: 1000, change: 550 }], rounding: 2 },
  ...bob,
};
// 300 at 0 %, malformed tender
const sale3: ReportSale = { total: 300, by_vat_rate: [vatGroup(0, 300)], tender: { legs: [{ kind: 'card', amount: 200 }] }, ...alice };
// refund of sale2's 452 by Alice
const refund1: ReportRefund = { amount: 452, by_vat_rate: [vatGroup(21, 452)], ...alice };

describe('turnoverCents', () => {
  test('sales minus refunds, per rate and per tender', () => {
    expect(turnoverCents({ sales: [sale1, sale2, sale3], refunds: [refund1] })).toEqual({
      sales_count: 3,
      refunds_count: 1,
      gross: 1792,
      refunds: 452,
      net: 1340,
      by_vat_rate: [
        { rate: 21, net: 413, vat: 87, gross: 500 },
        { rate: 6, net: 509, vat: 31, gross: 540 },
        { rate: 0, net: 300, vat: 0, gross: 300 },
      ],
      by_tender: [
        { label: 'Cash', amount: 500 + 452 - 452, count: 2 },
        { label: 'Card', amount: 540, count: 1 },
        { label: 'Meal voucher', amount: 0, count: 0 },
        { label: 'Gift voucher', amount: 0, count: 0 },
        { label: 'Unknown', amount: 300, count: 1 },
      ],
    });
  });

  test('an empty day', () => {
    const t = turnoverCents({ sales: [], refunds: [] });
    expect([t.sales_count, t.refunds_count, t.gross, t.refunds, t.net, t.by_vat_rate.length]).toEqual([0, 0, 0, 0, 0, 0]);
    expect(t.by_tender.map((r) => r.amount)).toEqual([0, 0, 0, 0, 0]);
  });

  test('refuses a negative or fractional refund amount', () => {
    expect(() => turnoverCents({ sales: [], refunds: [{ ...refund1, amount: -1 }] })).toThrow(RangeError);
    expect(() => turnoverCents({ sales: [], refunds: [{ ...refund1, amount: 1.5 }] })).toThrow(RangeError);
  });

  test('property: net = sum of VAT gross = sum of tender rows', () => {
    const r = prng(314);
    const rates = [21, 12, 6, 0];
    for (let i = 0; i < 300; i++) {
      const sales: ReportSale[] = Array.from({ length: r.int(0, 15) }, () => {
        const parts = Array.from({ length: r.int(1, 3) }, () => [r.pick(rates), r.int(0, 4000)] as const);
        const total = parts.reduce((s, [, g]) => s + g, 0);
        const card = r.int(0, total);
        return {
          total,
          by_vat_rate: parts.map(([rate, g]) => vatGroup(rate, g)),
          tender: { legs: [{ kind: 'card', amount: card }, { kind: 'cash', amount: total - card }], rounding: 0 },
          staff_id: r.pick(['a', 'b']),
        };
      });
      const refunds: ReportRefund[] = Array.from({ length: r.int(0, 3) }, () => {
        const g = r.int(0, 2000);
        return { amount: g, by_vat_rate: [vatGroup(r.pick(rates), g)], staff_id: r.pick(['a', 'c']) };
      });
      const t = turnoverCents({ sales, refunds });
      expect(t.by_vat_rate.reduce((s, g) => s + g.gross, 0)).toBe(t.net);
      expect(t.by_tender.reduce((s, g) => s + g.amount, 0)).toBe(t.net);
      expect(userTurnoversCents({ sales, refunds }).reduce((s, u) => s + u.net, 0)).toBe(t.net);
    }
  });
});

describe('userTurnoversCents', () => {
  test('per staff member, sorted by name', () => {
    const users = userTurnoversCents({ sales: [sale2, sale1, sale3], refunds: [refund1, { ...refund1, amount: 100, by_vat_rate: [vatGroup(21, 100)], staff_id: 's-zed', staff_name: null }] });
    expect(users.map((u) => [u.staff_id, u.name, u.sales_count, u.refunds_count, u.gross, u.refunds, u.net])).toEqual([
      ['s-zed', null, 0, 1, 0, 100, -100],
      ['s-alice', 'Alice', 2, 1, 1340, 452, 888],
      ['s-bob', 'Bob', 1, 0, 452, 0, 452],
    ]);
    expect(users[2]?.by_tender.map((r) => [r.label, r.amount])).toEqual([
      ['Cash', 452],
      ['Card', 0],
      ['Meal voucher', 0],
      ['Gift voucher', 0],
      ['Unknown', 0],
    ]);
  });
});

describe('xReport and zReport', () => {
  test('decimal major units', () => {
    const x = xReport({ sales: [sale1, sale2], refunds: [refund1] });
    expect(x.turnover_x).toEqual({
      sales_count: 2,
      refunds_count: 1,
      gross: 14.92,
      refunds: 4.52,
      net: 10.4,
      by_vat_rate: [
        { rate: 21, net: 4.13, vat: 0.87, gross: 5 },
        { rate: 6, net: 5.09, vat: 0.31, gross: 5.4 },
      ],
      by_tender: [
        { label: 'Cash', amount: 5, count: 2 },
        { label: 'Card', amount: 5.4, count: 1 },
        { label: 'Meal voucher', amount: 0, count: 0 },
        { label: 'Gift voucher', amount: 0, count: 0 },
        { label: 'Unknown', amount: 0, count: 0 },
      ],
    });
    expect(x.user_x.map((u) => [u.staff_id, u.name, u.sales_count, u.net])).toEqual([
      ['s-alice', 'Alice', 1, 5.88],
      ['s-bob', 'Bob', 1, 4.52],
    ]);
  });

  test('Z is the same aggregation with a report number', () => {
    const input = { sales: [sale1, sale2, sale3], refunds: [refund1] };
    const x = xReport(input);
    expect(zReport({ ...input, report_number: 7 })).toEqual({ report_number: 7, turnover_z: x.turnover_x, user_z: x.user_x });
    expect(() => zReport({ ...input, report_number: 0 })).toThrow(RangeError);
  });
});
