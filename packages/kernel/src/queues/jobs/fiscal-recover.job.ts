import { defineJob } from '../job-definition.ts';
import { QUEUES } from '../names.ts';
import { SweepPayload } from './sweep-payload.ts';

export const FISCAL_RECOVER_JOB = 'fiscal.recover';

/**
 * A sweep that re-sends pending fiscal journal entries to their remote fiscal data modules and
 * completes them (DESIGN 2, Fiscal). Without `tenant_database` every merchant is swept. A missed or
 * failed sweep is replaced by the next one, and re-sending is safe, so it is never retried.
 */
export const fiscalRecoverJob = defineJob({
  name: FISCAL_RECOVER_JOB,
  queue: QUEUES.system,
  version: 1,
  payload: SweepPayload,
  retries: 0,
  timeoutMs: 5 * 60_000,
});
