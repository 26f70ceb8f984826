import { PassThrough, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import type { TenantDb } from '@pos/db';
import { sql } from 'kysely';
import type { Access } from '../auth/access.ts';
import { abandon, safeCell, writeRow } from '../shared/table-export.ts';
import { merchantDate } from '../shared/merchant-date.ts';
import { transactionProvider } from './running-provider.ts';
import { checkTransactionFilters, scopedTransactions, transactionDateScope, type TransactionFilters } from './transaction-scope.ts';

export const TRANSACTION_EXPORT_COLUMNS = [
  'id',
  'created_at',
  'completed_at',
  'location_id',
  'channel',
  'order_no',
  'receipt_no',
  'status',
  'payment_provider',
  'subtotal',
  'discount',
  'vat',
  'tip_amount',
  'total',
  'total_eur',
  'is_free',
  'auto_success',
  // Last, so the earlier columns keep their places: the provider the payment ran on.
  'running_provider',
  // After it, for the same reason: what was charged beyond the goods and the tip (a marketplace's
  // delivery fee), so a row adds up: subtotal - discount + tip_amount + fees = total.
  'fees',
  // A payment test-mode order (no money taken): the stats' and reports' money leaves these rows out.
  'is_test',
  // The kitchen / marketplace status: a marketplace order its marketplace cancelled after paying is
  // `Complete` and `Cancelled` here, no sale for the stats and reports.
  'order_status',
] as const;
const PAGE = 500;

/**
 * `GET /transactions/export`: CSV (header row, UTF-8 with a byte-order mark so a spreadsheet reads
 * accents, one row per transaction, money in cents and in major units), streamed page by page. Named
 * with the merchant's date (`merchantDate`).
 */
export async function exportTransactions(tdb: TenantDb, access: Access, f: TransactionFilters, now: Date): Promise<{ filename: string; contentType: string; body: ReadableStream<Uint8Array>; done: Promise<void> }> {
  checkTransactionFilters(f);
  const day = await merchantDate(tdb, now);
  const out = new PassThrough();
  const csv = stringify({ header: true, columns: [...TRANSACTION_EXPORT_COLUMNS], bom: true, cast: { boolean: (b) => (b ? 'true' : 'false') } });
  csv.pipe(out);
  const work = (async () => {
    // The cursor is the last row's time as PostgreSQL wrote it (microseconds; a JavaScript Date keeps
    // milliseconds, and rows of the same millisecond were skipped at a page's end) and its id.
    let after: { at: string; id: string } | null = null;
    const dates = await transactionDateScope(tdb, f);
    for (;;) {
      let q = scopedTransactions(tdb, access, f, dates).selectAll().select(sql<string>`transactions.created_at::text`.as('page_at'));
      if (after) {
        const a = after;
        // A row comparison, which the (created_at, id) index answers (an OR of the two made every page sort the table).
        q = q.where(sql<boolean>`(transactions.created_at, transactions.id) < (${a.at}::timestamptz, ${a.id}::uuid)`);
      }
      const page = await q.orderBy('transactions.created_at', 'desc').orderBy('transactions.id', 'desc').limit(PAGE).execute();
      for (const t of page) {
        const row = {
          id: t.id,
          created_at: t.created_at.toISOString(),
          completed_at: t.completed_at ? t.completed_at.toISOString() : '',
          location_id: t.location_id,
          channel: safeCell(t.channel),
          order_no: t.order_no,
          receipt_no: t.receipt_no ?? '',
          status: t.status,
          payment_provider: t.payment_provider,
          subtotal: t.subtotal,
          discount: t.discount,
          vat: t.vat,
          tip_amount: t.tip_amount,
          total: t.total,
          total_eur: (t.total / 100).toFixed(2),
          is_free: t.is_free,
          auto_success: t.auto_success,
          running_provider: transactionProvider(t),
          fees: t.fees,
          is_test: t.is_test,
          order_status: t.order_status ?? '',
        };
        await writeRow(csv, out, row);
      }
      if (page.length < PAGE) break;
      const last = page[page.length - 1]!;
      after = { at: last.page_at, id: last.id };
    }
    csv.end();
  })().catch((e) => abandon(csv, out, e));
  // `done` settles once the file is written or given up (a client that hung up stops the page reads).
  return { filename: `transactions-${day}.csv`, contentType: 'text/csv; charset=utf-8', body: Readable.toWeb(out) as unknown as ReadableStream<Uint8Array>, done: work };
}
