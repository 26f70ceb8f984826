import { sql, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { TenantDb, TenantTables } from '@pos/db';
import { errors } from '@pos/kernel';
import { isBusinessDate } from '@pos/domain/business-day/business-day';
import type { Access } from '../auth/access.ts';
import { loadTransaction, type TransactionRow } from './transaction-records.ts';
import { transactionProviderSql } from './running-provider.ts';
import { utcEnvelope } from '../reports/report-window.ts';

/** Filters of the back-office transaction lists (datatable, stats, export). */
export interface TransactionFilters {
  location_id?: string;
  status?: string;
  /** The provider the payment ran on (`transactionProvider`). */
  payment_provider?: string;
  channel?: string;
  /** Dates (inclusive), `YYYY-MM-DD`, local to each transaction's location (as the sales report reads them). */
  from?: string;
  to?: string;
  search?: string;
}

type Q = SelectQueryBuilder<TenantTables, 'transactions', any>;

/**
 * Refuses a `from` or `to` that is not a calendar date (422, as the sales report does; `2026-02-30`
 * included), and a `to` before `from`. The export calls it before it starts streaming: a refusal after the first byte would be an empty 200.
 */
export function checkTransactionFilters(f: TransactionFilters): void {
  for (const k of ['from', 'to'] as const) {
    if (f[k] !== undefined && !isBusinessDate(f[k])) throw errors.field(k, `The ${k} field must be a valid date (YYYY-MM-DD).`);
  }
  // As the sales report: a range that ends before it starts is a mistake, not an empty list.
  if (f.from !== undefined && f.to !== undefined && f.to < f.from) throw errors.field('to', 'The to field must be a date after or equal to from.');
}

/** Applies the filters (checked first) and the caller's location grant (a location outside it sees nothing). */
export function scopedTransactions(tdb: TenantDb, access: Access, f: TransactionFilters): Q {
  checkTransactionFilters(f);
  let q = tdb.selectFrom('transactions') as Q;
  if (!access.allLocations) q = q.where('transactions.location_id', 'in', access.locationIds.size > 0 ? [...access.locationIds] : ['00000000-0000-0000-0000-000000000000']);
  if (f.location_id) q = q.where('transactions.location_id', '=', f.location_id);
  if (f.status) q = q.where('transactions.status', '=', f.status as TransactionRow['status']);
  // The provider the money went through (platform-a's override included), not the stamp alone.
  if (f.payment_provider) q = q.where(transactionProviderSql(), '=', f.payment_provider as TransactionRow['payment_provider']);
  if (f.channel) q = q.where('transactions.channel', '=', f.channel as TransactionRow['channel']);
  if (f.from || f.to) {
    // A merchant's "29 March" is the date at the till: a Brussels sale at 00:30 on the 29th is the 29th's,
    // as in the sales report. The UTC envelope keeps the created_at indexes usable; each row's local date decides.
    const env = utcEnvelope(f.from ?? f.to!, f.to ?? f.from!);
    const local = sql`(transactions.created_at at time zone ${tdb.selectFrom('locations').select('locations.timezone').where('locations.id', '=', sql.ref<string>('transactions.location_id'))})::date`;
    if (f.from) q = q.where('transactions.created_at', '>=', env.start).where(sql<SqlBool>`${local} >= ${f.from}::date`);
    if (f.to) q = q.where('transactions.created_at', '<', env.end).where(sql<SqlBool>`${local} <= ${f.to}::date`);
  }
  const s = f.search?.trim();
  if (s) {
    q = /^[0-9]{1,9}$/.test(s)
      ? q.where((eb) => eb.or([eb('transactions.order_no', '=', Number(s)), eb('transactions.receipt_no', '=', Number(s))]))
      : q.where('transactions.idempotency_key', 'ilike', `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  return q;
}

/** A transaction the back-office caller may see: 404 when absent, of another merchant or outside the grant. */
export async function loadVisibleTransaction(tdb: TenantDb, access: Access, id: string): Promise<TransactionRow> {
  const t = await loadTransaction(tdb, id);
  if (!access.allLocations && !access.locationIds.has(t.location_id)) throw errors.notFound('transaction');
  return t;
}
