import { describe, expect, test } from 'bun:test';
import type { ReportInput } from '@pos/domain/reports/x-report';
import { reportTurnover, userReportTurnovers } from './report-turnover.ts';

const cash = (amount: number, rounding = 0) => ({ total: amount + rounding, legs: [{ kind: 'cash', amount, tendered: amount, change: 0, rounding }], rounding });
const input: ReportInput = {
  sales: [
    { total: 1003, tender: cash(1005, -2), by_vat_rate: [{ rate: 6, net: 946, vat: 57, gross: 1003 }], staff_id: 'b', staff_name: 'Bea' },
    {
      total: 780,
      tender: JSON.stringify({ total: 780, rounding: 0, legs: [{ kind: 'card', funding: 'credit', amount: 500, issuer: 'Visa' }, { kind: 'gift_voucher', amount: 280 }] }),
      by_vat_rate: [{ rate: 21, net: 463, vat: 97, gross: 560 }, { rate: 6, net: 208, vat: 12, gross: 220 }],
      staff_id: 'a',
      staff_name: 'Al',
    },
    { total: 450, tender: { legs: 'broken' }, by_vat_rate: [{ rate: 21, net: 372, vat: 78, gross: 450 }], staff_id: 'a', staff_name: 'Al' },
  ],
  refunds: [{ amount: 220, by_vat_rate: [{ rate: 6, net: 208, vat: 12, gross: 220 }], staff_id: 'b', staff_name: 'Bea' }],
};

describe('reportTurnover', () => {
  test('totals, VAT per label and payments per signed type in cents; refunds negative and taken off cash', () => {
    expect(reportTurnover(input)).toEqual({
      saleCount: 3,
      refundCount: 1,
      sales: 2233,
      refunds: -220,
      total: 2013,
      vats: [
        { label: 'A', taxableAmount: 835, vatAmount: 175, totalAmount: 1010 },
        { label: 'C', taxableAmount: 946, vatAmount: 57, totalAmount: 1003 },
      ],
      // The unreadable tender (450) counts in the totals but in no payment line.
      payments: [
        { type: 'CASH', amountType: 'PAYMENT', amount: 785 },
        { type: 'CASH', amountType: 'ROUNDING', amount: -2 },
        { type: 'CARD_CREDIT', amountType: 'PAYMENT', amount: 500 },
        { type: 'VOUCHER_STORE', amountType: 'PAYMENT', amount: 280 },
      ],
    });
    expect(reportTurnover({ sales: [], refunds: [] })).toEqual({ saleCount: 0, refundCount: 0, sales: 0, refunds: 0, total: 0, vats: [], payments: [] });
  });

  test('per employee, ordered by name', () => {
    expect(userReportTurnovers(input).map((u) => [u.employeeId, u.turnover.saleCount, u.turnover.refundCount, u.turnover.total])).toEqual([
      ['a', 2, 0, 1230],
      ['b', 1, 1, 783],
    ]);
  });
});

describe('reportTurnover: a cash-rounded sale refunded', () => {
  test('the refund takes off the cash handed back and the rounding it settled, as its ticket signed them: both rows net to 0', () => {
    const t = reportTurnover({
      sales: [{ total: 497, tender: { total: 497, legs: [{ kind: 'cash', amount: 495, tendered: 495, change: 0, rounding: 2 }], rounding: 2 }, by_vat_rate: [{ rate: 6, net: 469, vat: 28, gross: 497 }], staff_id: 'a' }],
      refunds: [{ amount: 497, rounding: 2, by_vat_rate: [{ rate: 6, net: 469, vat: 28, gross: 497 }], staff_id: 'a' }],
    });
    expect(t).toMatchObject({ sales: 497, refunds: -497, total: 0, payments: [] });
  });
});
