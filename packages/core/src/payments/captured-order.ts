import type { TransactionLineRow, TransactionRow } from './transaction-records.ts';

/**
 * What `PaymentCaptured` carries of a captured transaction: the columns the post-capture sequence
 * reads (its listeners, the jobs it queues), re-read by internal id. A listener that needs another
 * column adds it here.
 */
export const CAPTURED_COLUMNS = ['id', 'location_id', 'order_no', 'status', 'order_status', 'cart_session_id', 'is_test', 'table_session_id', 'scheduled_for'] as const;
/** The line columns the kitchen documents and tickets are written from. */
export const CAPTURED_LINE_COLUMNS = ['position', 'item_id', 'category_id', 'name', 'qty', 'unit_price', 'total', 'modifiers', 'variant'] as const;

export type CapturedTransaction = Pick<TransactionRow, (typeof CAPTURED_COLUMNS)[number]>;
export type CapturedLine = Pick<TransactionLineRow, (typeof CAPTURED_LINE_COLUMNS)[number]>;

/** A captured transaction as `PaymentCaptured` carries it: the re-read row and its lines. */
export interface CapturedOrder {
  readonly t: CapturedTransaction;
  readonly lines: readonly CapturedLine[];
}
