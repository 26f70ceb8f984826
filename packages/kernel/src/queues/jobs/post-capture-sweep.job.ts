import { Type } from '@sinclair/typebox';
import { defineJob } from '../job-definition.ts';
import { QUEUES } from '../names.ts';

export const POST_CAPTURE_SWEEP_JOB = 'payment.post-capture-sweep';

/**
 * A sweep that finds Complete transactions whose post-capture steps fall short (their jobs lost with
 * Redis's data, or failed for good while the database was away) and writes the missing jobs to the
 * outbox again. Without `tenant_database` every merchant is swept. A missed or failed sweep is replaced
 * by the next one, so it is never retried.
 */
export const postCaptureSweepJob = defineJob({
  name: POST_CAPTURE_SWEEP_JOB,
  queue: QUEUES.system,
  version: 1,
  payload: Type.Object(
    {
      tenant_database: Type.Optional(Type.String({ pattern: '^t_[a-z0-9_]{1,60}$' })),
      /** When the sweep was scheduled (ISO 8601, UTC). */
      at: Type.Optional(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$' })),
    },
    { additionalProperties: false },
  ),
  retries: 0,
  timeoutMs: 5 * 60_000,
});
