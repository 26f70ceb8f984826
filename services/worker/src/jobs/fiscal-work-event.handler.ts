import { bindTenant } from '@pos/db';
import type { fiscalWorkEventJob } from '@pos/kernel/queues/jobs/fiscal-work-event.job';
import { signWorkEvent, type WorkEventFiscal } from '@pos/core/pos/staff/sign-work-event';
import type { JobHandler } from './job-handler.ts';

const UNDEFINED_TABLE = '42P01';
const INVALID_SCHEMA = '3F000';

/**
 * The `fiscal.work-event` handler: signs a staff work-in or work-out through the signed-change step
 * (`signWorkEvent`: once per session and kind, so a repeated job signs nothing twice). A pending entry
 * (remote module unreachable) is left to the `fiscal.recover` sweep; a refusal or any other failure
 * throws, so the job fails and is retried.
 */
export function createFiscalWorkEventHandler(fiscal: WorkEventFiscal): JobHandler<typeof fiscalWorkEventJob> {
  return async (p, ctx) => {
    let outcome;
    try {
      outcome = await signWorkEvent(
        bindTenant(ctx.db, p.tenant_database),
        fiscal,
        { kind: p.kind, sessionId: p.session_id, staffId: p.staff_id, deviceId: p.device_id, locationId: p.location_id },
        ctx.clock.now(),
      );
    } catch (e) {
      // The merchant's schema is gone (merchant deleted): there is nothing left to sign for.
      const code = (e as { code?: unknown } | null)?.code;
      if (code === UNDEFINED_TABLE || code === INVALID_SCHEMA) {
        ctx.log.warn('work event of a merchant schema that no longer exists', { tenant_database: p.tenant_database, session: p.session_id, job_id: ctx.jobId });
        return;
      }
      throw e;
    }
    if (outcome === 'pending') ctx.log.warn('work event left pending for the fiscal module', { kind: p.kind, session: p.session_id, job_id: ctx.jobId });
  };
}
