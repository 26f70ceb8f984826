import { Type } from '@sinclair/typebox';
import { defineJob } from '../job-definition.ts';
import { QUEUES } from '../names.ts';

export const INTEGRATION_ORDER_IMPORT_SWEEP_JOB = 'integration.order-import-sweep';

/**
 * Re-queues the marketplace order events still `pending` after their import job's retries (the
 * marketplace away for longer than they last, or the job lost with Redis's data), so a paid order is
 * not lost (`marketplace-import-recovery.ts`). Enqueued by the worker every few minutes; a missed or
 * failed sweep is replaced by the next one, so it is never retried.
 */
export const integrationOrderImportSweepJob = defineJob({
  name: INTEGRATION_ORDER_IMPORT_SWEEP_JOB,
  queue: QUEUES.system,
  version: 1,
  payload: Type.Object({ at: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$' }) }, { additionalProperties: false }),
  retries: 0,
});
