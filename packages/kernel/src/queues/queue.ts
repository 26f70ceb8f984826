import BeeQueue from 'bee-queue';
import type { JobEnvelope } from './job-definition.ts';
import { QUEUE_PREFIX } from './names.ts';

export type JobQueue = BeeQueue<JobEnvelope>;

export interface CreateQueueOptions {
  /** A worker queue takes jobs (`process`); a producer only creates them. Default false. */
  isWorker?: boolean;
  /** Redis key prefix; default `bq`. Tests use their own. */
  prefix?: string;
  /** Connection and command errors after start; without it they are dropped (they also reject the pending calls). */
  onError?: (err: Error) => void;
}

/**
 * A bee-queue queue on `redisUrl`. Succeeded jobs are removed (the outbox row is the record), failed
 * ones are kept for inspection; jobs are not kept in memory and job events are not published, since
 * nothing here waits on a job's outcome. A worker queue also moves delayed retries back to waiting.
 *
 * A producer fails fast while Redis is away (no offline command queue), so the outbox relay can
 * leave its rows pending. A queue whose first connection failed stays broken: close it and make
 * another.
 */
export function createQueue(name: string, redisUrl: string, opts: CreateQueueOptions = {}): JobQueue {
  const isWorker = opts.isWorker ?? false;
  const queue = new BeeQueue<JobEnvelope>(name, {
    prefix: opts.prefix ?? QUEUE_PREFIX,
    // node_redis 3 client options (bee-queue's own client).
    redis: { url: redisUrl, enable_offline_queue: isWorker },
    isWorker,
    getEvents: false,
    sendEvents: false,
    storeJobs: false,
    removeOnSuccess: true,
    removeOnFailure: false,
    activateDelayedJobs: isWorker,
  });
  queue.on('error', opts.onError ?? (() => {}));
  // A failed first connection rejects `ready()`; it surfaces on the next call, not as an unhandled rejection.
  queue.ready().catch(() => {});
  return queue;
}
