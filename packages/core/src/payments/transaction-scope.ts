import { sql, type SelectQueryBuilder } from 'kysely';
import type { TenantDb, TenantTables } from '@pos/db';
import { errors } from '@pos/kernel';
import { dayBounds, isBusinessDate } from '@pos/domain/business-day/business-day';
import type { Access } from '../auth/access.ts';
import { loadTransaction, type TransactionRow } from './transaction-records.ts';
import { transactionProviderSql } from './running-provider.ts';

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

/**
 * `from`/`to` as instants per time zone of the merchant's locations: a merchant's "29 March" is the date
 * at the till (a Brussels sale at 00:30 on the 29th is the 29th's), as in the sales report. Read once per
 * request (a handful of locations); the conditions are plain ranges the indexes answer (a
 * per-row zone lookup made a month's list 20 times slower). The instant compared is the transaction's
 * listed date (`listedAt`): when it completed, else when it was created, as the sales report dates a payment.
 */
export interface DateScope {
  readonly zones: readonly { readonly locationIds: readonly string[]; readonly start: Date | null; readonly end: Date | null }[];
}

export async function transactionDateScope(tdb: TenantDb, f: TransactionFilters): Promise<DateScope | null> {
  checkTransactionFilters(f);
  if (!f.from && !f.to) return null;
  const byZone = new Map<string, string[]>();
  for (const l of await tdb.selectFrom('locations').select(['id', 'timezone']).execute()) {
    const ids = byZone.get(l.timezone);
    if (ids) ids.push(l.id);
    else byZone.set(l.timezone, [l.id]);
  }
  return {
    zones: [...byZone].map(([zone, locationIds]) => ({
      locationIds,
      start: f.from ? dayBounds(f.from, zone).start : null,
      end: f.to ? dayBounds(f.to, zone).end : null,
    })),
  };
}

/** When a transaction counts in the back office's date filters: its completion, else its creation (index `transactions_listed_at`). */
export const listedAt = sql<Date>`coalesce(transactions.completed_at, transactions.created_at)`;

/** Applies the filters (checked first) and the caller's location grant (a location outside it sees nothing); `dates` from `transactionDateScope`. */
export function scopedTransactions(tdb: TenantDb, access: Access, f: TransactionFilters, dates: DateScope | null): Q {
  checkTransactionFilters(f);
  let q = tdb.selectFrom('transactions') as Q;
  if (!access.allLocations) q = q.where('transactions.location_id', 'in', access.locationIds.size > 0 ? [...access.locationIds] : ['00000000-0000-0000-0000-000000000000']);
  if (f.location_id) q = q.where('transactions.location_id', '=', f.location_id);
  if (f.status) q = q.where('transactions.status', '=', f.status as TransactionRow['status']);
  // The provider the money went through (platform-a's override included), not the stamp alone.
  if (f.payment_provider) q = q.where(transactionProviderSql(), '=', f.payment_provider as TransactionRow['payment_provider']);
  if (f.channel) q = q.where('transactions.channel', '=', f.channel as TransactionRow['channel']);
  if (dates) {
    const [one] = dates.zones;
    if (dates.zones.length === 0) q = q.where('transactions.location_id', 'in', ['00000000-0000-0000-0000-000000000000']);
    // Every location in one zone (the usual merchant): one range.
    else if (dates.zones.length === 1) q = q.$if(one!.start !== null, (w) => w.where(listedAt, '>=', one!.start!)).$if(one!.end !== null, (w) => w.where(listedAt, '<', one!.end!));
    else
      q = q.where((eb) =>
        eb.or(
          dates.zones.map((z) =>
            eb.and([
              eb('transactions.location_id', 'in', [...z.locationIds]),
              ...(z.start ? [eb(listedAt, '>=', z.start)] : []),
              ...(z.end ? [eb(listedAt, '<', z.end)] : []),
            ]),
          ),
        ),
      );
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
