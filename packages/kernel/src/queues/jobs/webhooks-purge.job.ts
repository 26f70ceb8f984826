import { Type } from '@sinclair/typebox';
import { defineJob } from '../job-definition.ts';
import { QUEUES } from '../names.ts';

export const WEBHOOKS_PURGE_JOB = 'webhooks.purge';

/**
 * Retention of the central webhook log (spec 3 card-b rule 2): deletes rows whose `expires_at` passed
 * (only `card_b_webhook` rows carry one, 90 days). Enqueued hourly by the worker; safe to repeat.
 */
export const webhooksPurgeJob = defineJob({
  name: WEBHOOKS_PURGE_JOB,
  queue: QUEUES.system,
  version: 1,
  payload: Type.Object({ at: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$' }) }, { additionalProperties: false }),
  // A missed purge is done by the next one.
  retries: 0,
});
