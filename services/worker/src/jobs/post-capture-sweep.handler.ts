import type Redis from 'ioredis';
import type { CentralDb } from '@pos/db';
import { eachMerchant } from './each-merchant.ts';
import { claimFor } from './sweep-claim.ts';
import type { Logger } from '@pos/kernel';
import type { postCaptureSweepJob } from '@pos/kernel/queues/index';
import { findUnfinishedSequences, redriveSequences, SWEEP_LIMIT, SWEEP_MAX_PAGES } from '@pos/core/payments/post-capture-sweep';
import type { JobHandler } from './job-handler.ts';
import type { PaymentProviders } from '@pos/core/payments/payment-providers';
import { sweepStaleStarts } from './stale-start-sweep.ts';
import { sweepAiCreditPurchases } from './ai-credit-purchase-sweep.ts';

/** A transaction re-driven is not re-driven again for this long (its jobs may only be slow, behind a backlog). */
export const REDRIVE_EVERY_MS = 10 * 60_000;

export interface PostCaptureSweepSummary {
  readonly merchants: number;
  readonly redriven: number;
  /** Merchants whose sweep threw (logged). */
  readonly errors: number;
}

/**
 * Re-drives the unfinished post-capture sequences of every merchant (or only `tenantDatabase`). One
 * merchant's failure does not stop the others. With Redis, a transaction is re-driven at most once per
 * `REDRIVE_EVERY_MS` (a key with that expiry); without it (Redis away, or lost), every sweep re-drives:
 * the steps are recorded once, so a job run twice changes nothing the second time.
 */
export async function sweepPostCapture(db: CentralDb, redis: Redis | undefined, now: Date, log: Logger, tenantDatabase?: string, pageSize = SWEEP_LIMIT): Promise<PostCaptureSweepSummary> {
  let redriven = 0;
  const { merchants, errors } = await eachMerchant(db, log, 'post-capture sweep failed for a merchant', tenantDatabase, async (tdb, m) => {
    const claim = (id: string) => claimFor(redis, `post_capture_redrive:${m.tenant_database}:${id}`, REDRIVE_EVERY_MS);
    // Page on past the transactions re-driven lately (still on their way, or failing for good meanwhile)
    // so a newer lost job is not hidden behind them.
    const ids: string[] = [];
    let after: { completed_at: Date; id: string } | undefined;
    for (let page = 0; page < SWEEP_MAX_PAGES && ids.length < pageSize; page++) {
      const unfinished = await findUnfinishedSequences(tdb, now, pageSize, after);
      ids.push(...(await redriveSequences(tdb, m.tenant_database, unfinished.slice(0, pageSize - ids.length), claim)));
      if (unfinished.length < pageSize) break;
      after = unfinished.at(-1)!;
    }
    redriven += ids.length;
    if (ids.length > 0) log.warn('post-capture steps re-queued', { merchant_id: m.id, transactions: ids.length, first: ids[0] });
  });
  return { merchants, redriven, errors };
}

/**
 * The `payment.post-capture-sweep` handler: the post-capture steps a Complete transaction is missing,
 * then (with Redis and the payment providers) the payments left `Awaiting Payment` whose outcome never
 * reached us (`sweepStaleStarts`), then (with card-a) the AI credit purchases left pending
 * (`sweepAiCreditPurchases`). Throws after all three when a merchant's sweep failed (the next sweep retries).
 */
export function createPostCaptureSweepHandler(deps: { readonly redis?: Redis; readonly payments?: PaymentProviders }): JobHandler<typeof postCaptureSweepJob> {
  return async (payload, ctx) => {
    const log = ctx.log.child({ job: 'payment.post-capture-sweep', job_id: ctx.jobId });
    const summary = await sweepPostCapture(ctx.db, deps.redis, ctx.clock.now(), log, payload.tenant_database);
    const stale = deps.redis && deps.payments ? await sweepStaleStarts(ctx.db, deps.redis, deps.payments, ctx.clock.now(), log, payload.tenant_database ? { tenantDatabase: payload.tenant_database } : {}) : null;
    const credits = deps.payments?.cardA ? await sweepAiCreditPurchases(ctx.db, deps.redis, deps.payments.cardA, ctx.clock.now(), log, payload.tenant_database) : null;
    const errors = summary.errors + (stale?.errors ?? 0) + (credits?.errors ?? 0);
    if (errors > 0) throw new Error(`payment sweeps failed for ${errors} merchant(s) or payment(s)`);
  };
}
