import { Type } from '@sinclair/typebox';
import { defineJob } from '../job-definition.ts';
import { QUEUES } from '../names.ts';

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
