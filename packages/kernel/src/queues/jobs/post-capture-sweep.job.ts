import { defineJob } from '../job-definition.ts';
import { QUEUES } from '../names.ts';
import { SweepPayload } from './sweep-payload.ts';

export const POST_CAPTURE_SWEEP_JOB = 'payment.post-capture-sweep';

/**
 * A sweep that finds Complete transactions whose post-capture steps fall short (their jobs lost with
 * Redis's data, or failed for good while the database was away) and writes the missing jobs to the
 * outbox again; the same job asks the providers about payments left waiting and card-a about AI credit
 * purchases left pending (the worker's handler). Without `tenant_database` every merchant is swept. A missed or failed sweep is replaced
 * by the next one, so it is never retried.
 */
export const postCaptureSweepJob = defineJob({
  name: POST_CAPTURE_SWEEP_JOB,
  queue: QUEUES.system,
  version: 1,
  payload: SweepPayload,
  retries: 0,
  timeoutMs: 5 * 60_000,
});
