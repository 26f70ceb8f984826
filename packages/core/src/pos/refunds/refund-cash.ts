// Pure: how much cash a register refund hands back. No I/O.
import type { Cents } from '@pos/domain/money';

export interface RefundCashInput {
  /** The sale's total (its lines' totals). */
  readonly saleTotal: Cents;
  /** The sale's cash rounding as frozen (raw cash due - rounded; negative when rounded up). */
  readonly saleRounding: Cents;
  /** Line totals of the sale's earlier refunds. */
  readonly linesBefore: Cents;
  /** Cash the earlier refunds handed back. */
  readonly cashBefore: Cents;
  /** Line totals of this refund. */
  readonly lines: Cents;
}

/**
 * The cash a refund hands back and its rounding (`lines - cash`), so that the refunds of a sale
 * hand back, together, exactly what the customer paid (`saleTotal - saleRounding`), never more at
 * any point: a refund that does not complete the sale hands back its lines' total, capped at what
 * is still unpaid back; the refund that completes it hands back the rest. A sale without rounding
 * hands back each refund's lines' total.
 */
export function refundCash(input: RefundCashInput): { cash: Cents; rounding: Cents } {
  const paidLeft = input.saleTotal - input.saleRounding - input.cashBefore;
  const completes = input.linesBefore + input.lines >= input.saleTotal;
  const cash = Math.max(0, completes ? paidLeft : Math.min(input.lines, paidLeft));
  return { cash, rounding: input.lines - cash };
}
