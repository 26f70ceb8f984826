import { bindTenant, isTenantSchemaName, type CentralDb } from '@pos/db';
import type { Clock, Logger } from '@pos/kernel';
import type { fiscalRecoverJob } from '@pos/kernel/queues/jobs/fiscal-recover.job';
import type { FiscalService } from '@pos/core/fiscal/fiscal-service';
import { recoverPendingEntries, type RecoveryHooks } from '@pos/core/fiscal/recover-pending';
import type { JobHandler } from './job-handler.ts';

/** What the sweep needs besides the job context. */
export interface FiscalRecoveryDeps {
  readonly fiscal: Pick<FiscalService, 'completePending'>;
  /** Finish the records whose entries recovery settles (e.g. SETTLING orders). */
  readonly hooks?: RecoveryHooks;
  /** Entries younger than this are left to the call in flight (default 60 s). */
  readonly olderThanMs?: number;
  /** Measures `olderThanMs` (the handler passes the worker's clock; default the system clock). */
  readonly clock?: Clock;
}

export interface FiscalSweepSummary {
  readonly merchants: number;
  readonly signed: number;
  readonly failed: number;
  readonly pending: number;
  /** Merchants whose sweep threw (logged). */
  readonly errors: number;
}

const UNDEFINED_TABLE = '42P01';

/**
 * Runs `recoverPendingEntries` in every merchant's schema (or only `tenantDatabase`). One merchant's
 * failure does not stop the others; a schema without the journal yet (being created) is skipped.
 */
export async function sweepFiscalJournals(db: CentralDb, deps: FiscalRecoveryDeps, log: Logger, tenantDatabase?: string): Promise<FiscalSweepSummary> {
  let q = db.selectFrom('merchants').select(['id', 'tenant_database']).orderBy('created_at');
  if (tenantDatabase) q = q.where('tenant_database', '=', tenantDatabase);
  const merchants = await q.execute();
  let signed = 0;
  let failed = 0;
  let pending = 0;
  let errors = 0;
  for (const m of merchants) {
    if (!isTenantSchemaName(m.tenant_database)) continue;
    try {
      const r = await recoverPendingEntries(bindTenant(db, m.tenant_database), deps.fiscal, {
        log: log.child({ merchant_id: m.id }),
        ...(deps.hooks ? { hooks: deps.hooks } : {}),
        ...(deps.olderThanMs !== undefined ? { olderThanMs: deps.olderThanMs } : {}),
        ...(deps.clock ? { clock: deps.clock } : {}),
      });
      signed += r.signed;
      failed += r.failed;
      pending += r.pending;
    } catch (e) {
      if ((e as { code?: unknown } | null)?.code === UNDEFINED_TABLE) continue;
      errors++;
      log.error('fiscal recovery failed for a merchant', { merchant_id: m.id, err: e });
    }
  }
  return { merchants: merchants.length, signed, failed, pending, errors };
}

/**
 * The `fiscal.recover` handler, bound to the worker's fiscal service. Throws after the sweep when a
 * merchant's sweep failed, so the run shows as failed (the next sweep retries).
 */
export function createFiscalRecoverHandler(deps: FiscalRecoveryDeps): JobHandler<typeof fiscalRecoverJob> {
  return async (payload, ctx) => {
    const summary = await sweepFiscalJournals(ctx.db, { clock: ctx.clock, ...deps }, ctx.log.child({ job: 'fiscal.recover', job_id: ctx.jobId }), payload.tenant_database);
    if (summary.signed + summary.failed + summary.pending > 0) ctx.log.info('fiscal recovery sweep', { ...summary });
    if (summary.errors > 0) throw new Error(`fiscal recovery failed for ${summary.errors} merchant(s)`);
  };
}
