import { Type } from '@sinclair/typebox';
import { defineJob } from '../job-definition.ts';
import { QUEUES } from '../names.ts';

export const HEARTBEAT_JOB = 'heartbeat';

/** The worker's scheduler enqueues this through the outbox; its handler upserts `heartbeats` for `service`. */
export const heartbeatJob = defineJob({
  name: HEARTBEAT_JOB,
  queue: QUEUES.system,
  version: 1,
  payload: Type.Object(
    {
      service: Type.String({ minLength: 1, maxLength: 100 }),
      /** When the beat was scheduled (ISO 8601, UTC). */
      at: Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d+)?(Z|[+-]\\d{2}:\\d{2})$' }),
    },
    { additionalProperties: false },
  ),
  // A missed beat is replaced by the next one.
  retries: 0,
});
