import type { TenantDb } from '@pos/db';
import { TRANSACTION_CHANNELS, type TransactionChannel } from '@pos/domain/payments/transaction-values';
import type { Access } from '../auth/access.ts';
import { scopedTransactions, transactionDateScope, type TransactionFilters } from './transaction-scope.ts';
import { transactionProviderSql } from './running-provider.ts';
import { cancelledMarketplaceOrder } from './counted-sale.ts';

export interface TransactionStats {
  count: number;
  /**
   * Complete transactions outside test mode (the money the reports count): their count, total and tips
   * (cents). A marketplace order its marketplace cancelled after paying is no sale and not counted here.
   */
  complete: { count: number; total: number; tip_amount: number; average: number };
  by_status: Record<string, number>;
  /** The same complete transactions by the provider their payment ran on (`transactionProvider`). */
  by_provider: Record<string, { count: number; total: number }>;
  /** The same complete transactions by the channel stored on them; every channel, zeros included. */
  by_channel: Record<TransactionChannel, { count: number; total: number }>;
}

/**
 * `GET /transactions/stats`: counts and money over the same filters as the data table. Test-mode
 * transactions are counted (`count`, `by_status`: the data table lists them, to be deleted) but their
 * synthetic payments are no money: `complete`, `by_provider` and `by_channel` leave them out, as the sales report does,
 * and so are the marketplace orders cancelled after paying (still `Complete` in `by_status`, as listed).
 */
export async function transactionStats(tdb: TenantDb, access: Access, f: TransactionFilters): Promise<TransactionStats> {
  const rows = await scopedTransactions(tdb, access, f, await transactionDateScope(tdb, f))
    .select((eb) => [
      'transactions.status',
      transactionProviderSql().as('provider'),
      'transactions.channel',
      'transactions.is_test',
      cancelledMarketplaceOrder('transactions').as('no_sale'),
      eb.fn.countAll<string>().as('n'),
      eb.fn.sum<string>('transactions.total').as('total'),
      eb.fn.sum<string>('transactions.tip_amount').as('tips'),
    ])
    .groupBy(['transactions.status', 'provider', 'transactions.channel', 'transactions.is_test', 'no_sale'])
    .execute();
  const by_channel = Object.fromEntries(TRANSACTION_CHANNELS.map((c) => [c, { count: 0, total: 0 }])) as TransactionStats['by_channel'];
  const out: TransactionStats = { count: 0, complete: { count: 0, total: 0, tip_amount: 0, average: 0 }, by_status: {}, by_provider: {}, by_channel };
  for (const r of rows as { status: string; provider: string; channel: TransactionChannel; is_test: boolean; no_sale: boolean; n: string; total: string | null; tips: string | null }[]) {
    const n = Number(r.n);
    out.count += n;
    out.by_status[r.status] = (out.by_status[r.status] ?? 0) + n;
    if (r.status === 'Complete' && !r.is_test && !r.no_sale) {
      out.complete.count += n;
      out.complete.total += Number(r.total ?? 0);
      out.complete.tip_amount += Number(r.tips ?? 0);
      const p = (out.by_provider[r.provider] ??= { count: 0, total: 0 });
      p.count += n;
      p.total += Number(r.total ?? 0);
      const c = (out.by_channel[r.channel] ??= { count: 0, total: 0 });
      c.count += n;
      c.total += Number(r.total ?? 0);
    }
  }
  out.complete.average = out.complete.count ? Math.round(out.complete.total / out.complete.count) : 0;
  return out;
}
