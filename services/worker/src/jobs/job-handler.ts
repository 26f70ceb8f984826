import type { Clock, Logger } from '@pos/kernel';
import type { CentralDb } from '@pos/db';
import type { JobDefinition, JobPayload } from '@pos/kernel/queues/index';
import type { NotificationDriver } from '../notifications/driver.ts';

/** What a handler may use; built once by the worker. */
export interface JobContext {
  readonly db: CentralDb;
  readonly log: Logger;
  readonly clock: Clock;
  readonly notifications: NotificationDriver;
  /** The bee-queue job id (`outbox-<id>-<t>` for relayed rows). */
  readonly jobId: string;
  /** This run is the job's last: no retries are left if it fails (absent: not known, taken as not last). */
  readonly finalAttempt?: boolean;
}

/** Runs one job whose payload has already been validated against its schema. Must be safe to repeat. */
export type JobHandler<D extends JobDefinition> = (payload: JobPayload<D>, ctx: JobContext) => Promise<void>;

/**
 * Runs the rows of one batch (`JobDefinition.batch`), payloads already validated, skipped rows already
 * left out: answers one outcome per payload, in order, null when that row's work is done, else its
 * error (the batch is retried; the done rows are not run again). Throwing fails no row by itself: the
 * processor then runs each row through the job's single handler. Must be safe to repeat.
 */
export type BatchJobHandler<D extends JobDefinition> = (payloads: readonly JobPayload<D>[], ctx: JobContext) => Promise<readonly (Error | null)[]>;

/**
 * A failure no retry can cure (an unknown template, a payload a newer build wrote for something this
 * build does not have): the processor fails the job for good, at once, instead of spending its retries.
 */
export class UnrecoverableJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnrecoverableJobError';
  }
}
