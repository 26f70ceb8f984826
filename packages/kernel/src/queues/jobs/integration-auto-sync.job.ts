import { Type } from '@sinclair/typebox';
import { defineJob } from '../job-definition.ts';
import { QUEUES } from '../names.ts';

export const INTEGRATION_AUTO_SYNC_JOB = 'integration.auto-sync';

/**
 * One daily auto-sync run of an integration connection (spec 1 "Auto-sync schedule payload", rule 5),
 * written to the outbox by the worker's scheduler in the transaction that claimed the due schedule, so
 * one scheduled instant gives one job. A run that failed for a reason worth retrying (provider
 * unreachable, 5xx) is retried with exponential backoff; a refusal is recorded and not retried.
 */
export const integrationAutoSyncJob = defineJob({
  name: INTEGRATION_AUTO_SYNC_JOB,
  queue: QUEUES.system,
  version: 1,
  payload: Type.Object(
    {
      connectionId: Type.String({ pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$', maxLength: 36 }),
      provider: Type.String({ minLength: 1, maxLength: 40 }),
      /** The scheduled instant this run stands for (ISO 8601, UTC). */
      scheduledFor: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$' }),
    },
    { additionalProperties: false },
  ),
  retries: 3,
  backoffMs: 5000,
});
