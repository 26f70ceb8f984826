import BeeQueue from 'bee-queue';
import { createRequire } from 'node:module';
import type { EventEmitter } from 'node:events';
import type { JobEnvelope } from './job-definition.ts';
import { QUEUE_PREFIX } from './names.ts';

export type JobQueue = BeeQueue<JobEnvelope>;

/** bee-queue's Lua script loader (internal module of the pinned bee-queue 2.0.0). */
const beeQueueLua = createRequire(import.meta.url)('bee-queue/lib/lua') as { buildCache(client: unknown): Promise<unknown> };

/** Largest timer Node accepts (about 24.8 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

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
 * ones are kept for inspection (the worker records them in `job_failures` and purges them after 7 days); jobs are not kept in memory and job events are not published, since
 * nothing here waits on a job's outcome. A worker queue also moves delayed retries back to waiting.
 *
 * A producer fails fast while Redis is away (first connection not retried, no offline command
 * queue), so the outbox relay can leave its rows pending; a producer whose first connection failed
 * stays broken: close it and make another. A worker keeps reconnecting: `ready()` waits for Redis.
 */
export function createQueue(name: string, redisUrl: string, opts: CreateQueueOptions = {}): JobQueue {
  const isWorker = opts.isWorker ?? false;
  const queue = new BeeQueue<JobEnvelope>(name, {
    prefix: opts.prefix ?? QUEUE_PREFIX,
    // node_redis 3 client options (bee-queue's own client). A worker waits for Redis however long it
    // is away (reconnecting every few seconds; node_redis would otherwise give up after an hour); a
    // producer fails at once so its caller can keep the work elsewhere.
    redis: isWorker
      ? { url: redisUrl, retry_strategy: (o: { attempt: number }) => Math.min(o.attempt * 250, 5000), connect_timeout: MAX_TIMER_MS }
      : { url: redisUrl, enable_offline_queue: false },
    isWorker,
    getEvents: false,
    sendEvents: false,
    storeJobs: false,
    removeOnSuccess: true,
    removeOnFailure: false,
    activateDelayedJobs: isWorker,
  });
  queue.on('error', opts.onError ?? (() => {}));
  queue.ready().then(
    () => reloadScriptsOnReconnect(queue),
    // A failed first connection rejects `ready()`; it surfaces on the next call, not as an unhandled rejection.
    () => {},
  );
  return queue;
}

/**
 * bee-queue loads its Lua scripts once, at the first connection, and then calls them by SHA. A Redis
 * restart empties the script cache (persistence does not keep it), so every later script call would
 * fail with NOSCRIPT: load them again each time the command connection is ready again.
 */
function reloadScriptsOnReconnect(queue: JobQueue): void {
  const client = (queue as unknown as { client: EventEmitter | null }).client;
  if (!client) return;
  // Called after the first 'ready': every 'ready' from now on is a reconnection.
  client.on('ready', () => {
    beeQueueLua.buildCache(client).catch((err: unknown) => queue.emit('error', err instanceof Error ? err : new Error(String(err))));
  });
}
