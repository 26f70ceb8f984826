import type { CentralDb } from '@pos/db';
import { eachMerchant } from './each-merchant.ts';
import { systemClock, type Clock, type Logger } from '@pos/kernel';
import type { fiscalRecoverJob } from '@pos/kernel/queues/jobs/fiscal-recover.job';
import type { FiscalService } from '@pos/core/fiscal/fiscal-service';
import { recoverPendingEntries, type RecoveryHooks } from '@pos/core/fiscal/recover-pending';
import type { JobHandler } from './job-handler.ts';
import type Redis from 'ioredis';
import { endExpiredStaffSessions, findUnsignedWorkEvents, requeueWorkEvents } from '@pos/core/pos/staff/work-event-sweep';
import { claimFor } from './sweep-claim.ts';

/** A work event re-queued is not re-queued again for this long (its job may only be slow, behind a backlog). */
export const WORK_EVENT_REQUEUE_EVERY_MS = 10 * 60_000;

/** What the sweep needs besides the job context. */
export interface FiscalRecoveryDeps {
  readonly fiscal: Pick<FiscalService, 'completePending'>;
  /** Finish the records whose entries recovery settles (e.g. SETTLING orders). */
  readonly hooks?: RecoveryHooks;
  /** Entries younger than this are left to the call in flight (default 60 s). */
  readonly olderThanMs?: number;
  /** Measures `olderThanMs` (the handler passes the worker's clock; default the system clock). */
  readonly clock?: Clock;
  /** Holds a re-queued work event for `WORK_EVENT_REQUEUE_EVERY_MS` (without it every sweep re-queues: harmless, signing is once). */
  readonly redis?: Redis;
}

export interface FiscalSweepSummary {
  readonly merchants: number;
  readonly signed: number;
  readonly failed: number;
  readonly pending: number;
  /** Staff work events whose job was lost (no journal entry), queued again (`findUnsignedWorkEvents`). */
  readonly requeued: number;
  /** Merchants whose sweep threw (logged). */
  readonly errors: number;
}

/**
 * Runs `recoverPendingEntries` in every merchant's schema (or only `tenantDatabase`), then queues again
 * the staff work events whose job was lost (`findUnsignedWorkEvents`). One merchant's
 * failure does not stop the others; a schema without the journal yet (being created) is skipped.
 */
export async function sweepFiscalJournals(db: CentralDb, deps: FiscalRecoveryDeps, log: Logger, tenantDatabase?: string): Promise<FiscalSweepSummary> {
  let signed = 0;
  let failed = 0;
  let pending = 0;
  let requeued = 0;
  const { merchants, errors } = await eachMerchant(db, log, 'fiscal recovery failed for a merchant', tenantDatabase, async (tdb, m) => {
    const r = await recoverPendingEntries(tdb, deps.fiscal, {
      log: log.child({ merchant_id: m.id }),
      ...(deps.hooks ? { hooks: deps.hooks } : {}),
      ...(deps.olderThanMs !== undefined ? { olderThanMs: deps.olderThanMs } : {}),
      ...(deps.clock ? { clock: deps.clock } : {}),
    });
    signed += r.signed;
    failed += r.failed;
    pending += r.pending;
    const now = (deps.clock ?? systemClock).now();
    await endExpiredStaffSessions(tdb, now);
    const lost = await findUnsignedWorkEvents(tdb, now);
    const n = await requeueWorkEvents(tdb, m.tenant_database, lost, (key) => claimFor(deps.redis, `work_event_requeue:${m.tenant_database}:${key}`, WORK_EVENT_REQUEUE_EVERY_MS));
    if (n > 0) log.warn('staff work events without a journal entry queued again', { merchant_id: m.id, events: n });
    requeued += n;
  });
  return { merchants, signed, failed, pending, requeued, errors };
}

/**
 * The `fiscal.recover` handler, bound to the worker's fiscal service. Throws after the sweep when a
 * merchant's sweep failed, so the run shows as failed (the next sweep retries).
 */
export function createFiscalRecoverHandler(deps: FiscalRecoveryDeps): JobHandler<typeof fiscalRecoverJob> {
  return async (payload, ctx) => {
    const summary = await sweepFiscalJournals(ctx.db, { clock: ctx.clock, ...deps }, ctx.log.child({ job: 'fiscal.recover', job_id: ctx.jobId }), payload.tenant_database);
    if (summary.signed + summary.failed + summary.pending + summary.requeued > 0) ctx.log.info('fiscal recovery sweep', { ...summary });
    if (summary.errors > 0) throw new Error(`fiscal recovery failed for ${summary.errors} merchant(s)`);
  };
}
