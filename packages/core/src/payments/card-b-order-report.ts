import type { CardBOrderTransactionState } from '@pos/providers/payments';
import type { ProviderReport } from './provider-outcome.ts';

/**
 * What a card-b hosted-checkout order's transactions (`GET /api/transactions?ordercode=`) say about its
 * payment: a charge (or the capture of a pre-authorisation) is paid, a pre-authorisation alone is
 * authorised, a failed one failed, nothing yet is processing.
 */
const FINAL = 'F';
const CHARGE = 5;
const PREAUTH = 1;
const CAPTURE = 0;

/** What the order's transactions say, with the details kept in `payment_snapshot`. */
export function orderReport(txs: readonly CardBOrderTransactionState[], orderCode: string): ProviderReport & { readonly preauth: CardBOrderTransactionState | null } {
  const done = txs.filter((t) => t.statusId === FINAL);
  const paid = done.find((t) => t.transactionTypeId === CHARGE || t.transactionTypeId === CAPTURE);
  if (paid) {
    const parent = paid.parentId ? { preauthTransactionId: paid.parentId } : {};
    return { outcome: 'succeeded', snapshot: { orderCode, transactionId: paid.transactionId, amount: paid.amount, ...parent }, preauth: null };
  }
  const preauth = done.find((t) => t.transactionTypeId === PREAUTH) ?? null;
  if (preauth) return { outcome: 'authorised', snapshot: { orderCode, preauthTransactionId: preauth.transactionId, amount: preauth.amount }, preauth };
  const failed = txs.find((t) => t.statusId === 'E');
  if (failed) return { outcome: 'failed', snapshot: { orderCode, transactionId: failed.transactionId }, preauth: null };
  return { outcome: 'processing', snapshot: {}, preauth: null };
}
