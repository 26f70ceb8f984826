import { Type } from '@sinclair/typebox';
import { defineJob } from '../job-definition.ts';
import { QUEUES } from '../names.ts';

export const FISCAL_WORK_EVENT_JOB = 'fiscal.work-event';

const Uuid = Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', maxLength: 36 });

/**
 * Signs a staff member's fiscal work-in (pin-login) or work-out (pin-logout, credential deletion)
 * event, written to the outbox in the transaction that opened or ended the staff session. The
 * handler signs it once per session and kind (a re-run finds the journal entry and does nothing); a
 * failure fails the job, which is retried.
 */
export const fiscalWorkEventJob = defineJob({
  name: FISCAL_WORK_EVENT_JOB,
  queue: QUEUES.system,
  version: 1,
  payload: Type.Object(
    {
      tenant_database: Type.String({ pattern: '^t_[a-z0-9_]{1,60}$' }),
      kind: Type.Union([Type.Literal('work_in'), Type.Literal('work_out')]),
      session_id: Uuid,
      staff_id: Uuid,
      device_id: Uuid,
      location_id: Uuid,
    },
    { additionalProperties: false },
  ),
  retries: 5,
  backoffMs: 2000,
});
