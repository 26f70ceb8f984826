import type Redis from 'ioredis';
import type { CentralDb } from '@pos/db';
import type { Logger } from '@pos/kernel';
import type { PaymentProviders } from '@pos/core/payments/payment-providers';
import {
  discardOrphanedPending,
  findOrphanedPending,
  findUncapturedFree,
  findStaleStarts,
  settleStaleStarts,
  STALE_START_ASK_EVERY_MS,
  STALE_START_LIMIT,
  STALE_START_MAX_PAGES,
  STALE_START_PAGE,
  type StaleStart,
} from '@pos/core/payments/stale-start-sweep';
import { eachMerchant } from './each-merchant.ts';
import { claimFor } from './sweep-claim.ts';

/** A sweep stops asking after this long (providers slow or away); the next sweep goes on. */
export const STALE_SWEEP_BUDGET_MS = 60_000;

export interface StaleStartSweepSummary {
  readonly merchants: number;
  /** Starts the provider was asked about. */
  readonly asked: number;
  /** Of those, the ones now Complete (paid, and no webhook or poll had told us), and free orders whose capture was lost. */
  readonly completed: number;
  /** Merchants whose sweep threw, and starts whose provider could not be asked (logged). */
  readonly errors: number;
  /** Storefront orders left `Pending` (their payment never started) that were discarded (`findOrphanedPending`). */
  readonly discarded: number;
}

export interface StaleStartSweepOptions {
  readonly tenantDatabase?: string;
  /** Starts asked about per merchant (default `STALE_START_LIMIT`). */
  readonly limit?: number;
  readonly pageSize?: number;
  readonly budgetMs?: number;
}

/**
 * Asks the providers about the payments left `Awaiting Payment`, and the `Unpaid` online orders the
 * customer can still pay at the provider (`findStaleStarts`), of every merchant
 * (or only `tenantDatabase`), and captures with their answers. A start asked about is not asked again
 * for `STALE_START_ASK_EVERY_MS` (a Redis key): the sweep pages past the ones still running (abandoned
 * carts, a terminal left waiting) to newer ones, instead of asking the same oldest hundred every time.
 * The whole sweep stops after `budgetMs`. A payment found paid this way is logged at warning level:
 * its webhook and its poll were both lost.
 */
export async function sweepStaleStarts(db: CentralDb, redis: Redis, providers: PaymentProviders, now: Date, log: Logger, opts: StaleStartSweepOptions = {}): Promise<StaleStartSweepSummary> {
  const limit = opts.limit ?? STALE_START_LIMIT;
  const pageSize = opts.pageSize ?? STALE_START_PAGE;
  const deadline = Date.now() + (opts.budgetMs ?? STALE_SWEEP_BUDGET_MS);
  let asked = 0;
  let completed = 0;
  let failed = 0;
  let discarded = 0;
  const { merchants, errors } = await eachMerchant(db, log, 'stale payment sweep failed for a merchant', opts.tenantDatabase, async (tdb, m) => {
    if (Date.now() > deadline) return;
    const claim = (id: string) => claimFor(redis, `stale_start_asked:${m.tenant_database}:${id}`, STALE_START_ASK_EVERY_MS);
    const ids: string[] = [];
    let after: StaleStart | undefined;
    for (let page = 0; page < STALE_START_MAX_PAGES && ids.length < limit; page++) {
      const rows = await findStaleStarts(tdb, now, pageSize, after);
      for (const r of rows) if (ids.length < limit && (await claim(r.id))) ids.push(r.id);
      if (rows.length < pageSize) break;
      after = rows.at(-1)!;
    }
    const outcomes = await settleStaleStarts({ db, tdb, tenantDatabase: m.tenant_database, redis, providers, log, now: () => new Date() }, ids, deadline);
    asked += outcomes.filter((o) => o.status !== 'skipped').length;
    const paid = outcomes.filter((o) => o.status === 'Complete');
    completed += paid.length;
    failed += outcomes.filter((o) => o.status === 'error').length;
    // Not answered (out of time, the provider away, a retry in flight): their claims go, so the next sweep asks again.
    const unanswered = outcomes.filter((o) => o.status === 'skipped' || o.status === 'error' || o.status === 'busy').map((o) => `stale_start_asked:${m.tenant_database}:${o.id}`);
    if (unanswered.length) await redis.del(...unanswered).catch(() => undefined);
    if (paid.length) log.warn('payments found paid by the stale payment sweep', { merchant_id: m.id, transactions: paid.map((o) => o.id) });
    // Free and test-mode storefront orders whose capture after the answer was lost: completed now.
    const free = await settleStaleStarts({ db, tdb, tenantDatabase: m.tenant_database, redis, providers, log, now: () => new Date() }, await findUncapturedFree(tdb, now), deadline);
    const freed = free.filter((o) => o.status === 'Complete');
    completed += freed.length;
    failed += free.filter((o) => o.status === 'error').length;
    if (freed.length) log.warn('free orders whose capture was lost completed by the stale payment sweep', { merchant_id: m.id, transactions: freed.map((o) => o.id) });
    // Orders whose request died before their payment started, never retried: nothing can pay them.
    const gone = await discardOrphanedPending({ redis, log }, tdb, await findOrphanedPending(tdb, now));
    discarded += gone.length;
    if (gone.length) log.info('orphaned storefront orders discarded', { merchant_id: m.id, transactions: gone });
  });
  return { merchants, asked, completed, errors: errors + failed, discarded };
}
