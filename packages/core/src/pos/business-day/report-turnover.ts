// Pure: the turnover an X or Z report signs (fiscal `ReportTurnover`, cents). No I/O.
import type { PaymentTotal, ReportTurnover, VatTotal } from '@pos/fiscal';
import { vatLabel } from '@pos/fiscal';
import { countedLegs, turnoverCents, userTurnoversCents, type ReportInput } from '@pos/domain';
import { paymentLines } from '@pos/tenders/payment-lines';
import type { FrozenTender, SignedPaymentType } from '@pos/tenders/types';

/** Order of the payment totals of a signed report. */
const PAYMENT_ORDER: readonly (readonly [SignedPaymentType, PaymentTotal['amountType']])[] = [
  ['CASH', 'PAYMENT'],
  ['CASH', 'ROUNDING'],
  ['CARD_DEBIT', 'PAYMENT'],
  ['CARD_CREDIT', 'PAYMENT'],
  ['CHEQUE_MEAL', 'PAYMENT'],
  ['VOUCHER_STORE', 'PAYMENT'],
];

const parse = (v: unknown): unknown => {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return null;
  }
};

/**
 * The fiscal turnover of a set of sales and refunds, in cents:
 * - `sales` the sum of sale totals, `refunds` the refunds as a NEGATIVE amount, `total` their sum;
 * - `vats` per VAT label from each ticket's own VAT groups (sales minus refunds), rate descending;
 * - `payments` the signed payment lines of every sale (built from its frozen tender, the same lines
 *   the sale signed), summed per type and amount type, with refunds taken off CASH PAYMENT (refunds
 *   hand back cash; a refund's rounding off CASH ROUNDING, as its ticket signed it). A sale whose tender cannot be read counts in the totals but in no payment line.
 * Zero payment rows are left out; the order is CASH, CASH ROUNDING, CARD_DEBIT, CARD_CREDIT,
 * CHEQUE_MEAL, VOUCHER_STORE.
 */
export function reportTurnover(input: ReportInput): ReportTurnover {
  const t = turnoverCents(input);
  const vats: VatTotal[] = t.by_vat_rate.map((g) => ({ label: vatLabel(g.rate), taxableAmount: g.net, vatAmount: g.vat, totalAmount: g.gross }));
  const sums = new Map<string, number>();
  const add = (type: SignedPaymentType, amountType: PaymentTotal['amountType'], amount: number) => {
    const k = `${type}:${amountType}`;
    sums.set(k, (sums.get(k) ?? 0) + amount);
  };
  for (const sale of input.sales) {
    if (countedLegs(sale) === null) continue;
    for (const line of paymentLines(parse(sale.tender) as FrozenTender)) add(line.type, line.amountType, line.amount);
  }
  for (const r of input.refunds) {
    // As the refund ticket signed them: the cash handed back, then the rounding it settled.
    add('CASH', 'PAYMENT', -(r.amount - (r.rounding ?? 0)));
    add('CASH', 'ROUNDING', -(r.rounding ?? 0));
  }
  const payments: PaymentTotal[] = PAYMENT_ORDER.flatMap(([type, amountType]) => {
    const amount = sums.get(`${type}:${amountType}`) ?? 0;
    return amount === 0 ? [] : [{ type, amountType, amount }];
  });
  return { saleCount: t.sales_count, refundCount: t.refunds_count, sales: t.gross, refunds: t.refunds === 0 ? 0 : -t.refunds, total: t.net, vats, payments };
}

/** The per-employee turnovers of a user X report, in the order of `userTurnoversCents` (name, then id). */
export function userReportTurnovers(input: ReportInput): { employeeId: string; turnover: ReportTurnover }[] {
  return userTurnoversCents(input).map((u) => ({
    employeeId: u.staff_id,
    turnover: reportTurnover({ sales: input.sales.filter((s) => s.staff_id === u.staff_id), refunds: input.refunds.filter((r) => r.staff_id === u.staff_id) }),
  }));
}
