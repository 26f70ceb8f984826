import type Redis from 'ioredis';
import type { Clock, Logger } from '@pos/kernel';
import type { CentralDb } from '@pos/db';
import {
  checkPayload as check,
  createQueue,
  findJob,
  JobEnvelope,
  type JobItem,
  payloadProblems,
  QUEUE_PREFIX,
  type JobDefinition,
  type JobQueue,
} from '@pos/kernel/queues/index';
import type BeeQueue from 'bee-queue';
import { UnrecoverableJobError, type BatchJobHandler, type JobContext, type JobHandler } from './jobs/job-handler.ts';
import { outboxJobId } from './outbox-relay.ts';
import { JobLease } from './job-lease.ts';
import { FAILED_JOB_PURGE_MS, FAILED_JOB_RETENTION_MS, failedJobFromStore, purgeFailedJobs, recordFailedJobs } from './failed-jobs.ts';
import type { NotificationDriver } from './notifications/driver.ts';
import type { WorkerMetrics } from './metrics.ts';

/** How long a "this outbox job already ran" marker is kept: far beyond the relay's crash window. */
export const DONE_MARKER_TTL_S = 24 * 60 * 60;

/** Sets each key in KEYS to 1 for ARGV[1] seconds: the done markers of a batch in one command. */
const MARK_DONE = `for _, k in ipairs(KEYS) do redis.call('SET', k, '1', 'EX', ARGV[1]) end return #KEYS`;

/** Between checks for stalled jobs (bee-queue's stall interval is 5 s). */
export const STALL_CHECK_MS = 5000;


/**
 * The job's logger: its fields go with each line instead of into a pino child, which (with redaction)
 * costs more than a no-op job's whole processing although most jobs log nothing at the level in force.
 */
function jobLogger(parent: Logger, fields: Record<string, unknown>): Logger {
  const w = (f?: Record<string, unknown>) => (f ? { ...fields, ...f } : fields);
  return {
    debug: (m, f) => parent.debug(m, w(f)),
    info: (m, f) => parent.info(m, w(f)),
    warn: (m, f) => parent.warn(m, w(f)),
    error: (m, f) => parent.error(m, w(f)),
    child: (f) => parent.child(w(f)),
  };
}

/** A job refused before its handler runs; never retried. */
export class RejectedJobError extends Error {
  constructor(message: string, readonly problems: string[] = []) {
    super(problems.length ? `${message}: ${problems.join('; ')}` : message);
    this.name = 'RejectedJobError';
  }
}

/** The job's own retries and backoff, kept aside while a deferral (`NEWER_RELEASE_DEFERRAL`) spends its own. */
interface NewerReleaseDeferral {
  readonly retries: number;
  readonly backoff: unknown;
}

/** A job a newer release wrote, handed back to its queue for a worker that knows it (`NEWER_RELEASE_DEFERRAL`). */
export class NewerReleaseJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NewerReleaseJobError';
  }
}

export interface ProcessorOptions {
  db: CentralDb;
  /** For the done markers (see `DONE_MARKER_TTL_S`). */
  redis: Redis;
  redisUrl: string;
  log: Logger;
  clock: Clock;
  notifications: NotificationDriver;
  metrics: WorkerMetrics;
  prefix?: string;
  /** Jobs run at once per queue (default 4). */
  concurrency?: number;
  /** Handlers by job name (the worker's are built by `createHandlers`). */
  handlers: Readonly<Record<string, JobHandler<any>>>;
  /** Batch handlers by job name, for jobs with `batch`; a batch of a job without one runs its rows through `handlers`, one by one. */
  batchHandlers?: Readonly<Record<string, BatchJobHandler<any>>>;
  /** A failed job is purged from Redis this long after its failure (default 7 days; its `job_failures` row stays). */
  failedRetentionMs?: number;
  /** Between two purges of this queue's failed jobs (default 1 hour, the first at start). */
  failedPurgeIntervalMs?: number;
  /** How a job written by a newer release is handed back (`NEWER_RELEASE_DEFERRAL`); tests shorten it. */
  newerReleaseDeferral?: { retries: number; backoffMs: number };
}

/**
 * A job this worker cannot read because a newer release wrote it (a job name it does not know, a payload
 * version above its own) is put back on its queue for a worker that knows it: during a rolling deploy old
 * and new workers take jobs from the same queues. 12 retries backing off from 5 s wait about 5.7 hours in
 * all (a deploy, or a rollback followed by a fix); then the job fails for good and is recorded in
 * `job_failures`, as a refused job always was.
 */
export const NEWER_RELEASE_DEFERRAL = { retries: 12, backoffMs: 5_000 } as const;

/**
 * Takes jobs from one queue: checks the envelope, finds the job's definition, checks the version and
 * validates the payload against the job's TypeBox schema (compiled once per schema) before the handler runs. A
 * refused job is logged and failed at once (no retries); a handler error fails the run, and bee-queue
 * retries it as the job's definition says. A job relayed twice from the outbox runs once.
 */
export class QueueProcessor {
  readonly queue: JobQueue;
  private readonly prefix: string;
  private readonly log: Logger;
  private purgeTimer: ReturnType<typeof setInterval> | undefined;
  private purging: Promise<unknown> = Promise.resolve();
  private readonly recording = new Set<Promise<void>>();

  constructor(readonly queueName: string, private readonly opts: ProcessorOptions) {
    this.prefix = opts.prefix ?? QUEUE_PREFIX;
    this.log = opts.log.child({ component: 'processor', queue: queueName });
    this.queue = createQueue(queueName, opts.redisUrl, {
      isWorker: true,
      prefix: this.prefix,
      onError: (err) => this.log.warn('queue connection error', { err: err.message }),
    });
  }

  /** Waits for the connection, then takes jobs. */
  async start(): Promise<void> {
    await this.queue.ready();
    this.queue.process(this.opts.concurrency ?? 4, (job) => this.run(job));
    // Puts back jobs whose worker died while running them (bee-queue leaves this to the caller).
    void this.queue.checkStalledJobs(STALL_CHECK_MS).catch((e: unknown) => this.log.warn('stalled job check failed', { err: e instanceof Error ? e.message : String(e) }));
    // A job that failed for good is recorded in the database at once (the purge records the ones missed).
    (this.queue as unknown as { on(ev: 'failed:fatal', fn: (job: BeeQueue.Job<JobEnvelope>, err: Error) => void): void }).on('failed:fatal', (job) => {
      const failed = failedJobFromStore(this.prefix, this.queueName, job.id, JSON.stringify({ data: job.data, options: job.options }));
      const p = recordFailedJobs(this.opts.db, [failed])
        .catch((e: unknown) => this.log.warn('could not record a failed job (the purge will)', { job_id: job.id, err: e instanceof Error ? e.message : String(e) }))
        .finally(() => this.recording.delete(p));
      this.recording.add(p);
    });
    const purge = () => {
      this.purging = this.purging.then(() => this.purgeFailed()).catch((e: unknown) => this.log.warn('failed job purge failed', { err: e instanceof Error ? e.message : String(e) }));
    };
    purge();
    this.purgeTimer = setInterval(purge, this.opts.failedPurgeIntervalMs ?? FAILED_JOB_PURGE_MS);
  }

  /** Settles when the failed-job purge in progress (the first one runs at start) is over; never rejects. */
  housekeeping(): Promise<unknown> {
    return this.purging;
  }

  /** Records the failed jobs of this queue not recorded yet, and purges from Redis those that failed more than the retention ago. */
  async purgeFailed(now = this.opts.clock.now()) {
    const r = await purgeFailedJobs(this.opts.db, this.opts.redis, { prefix: this.prefix, queue: this.queueName }, now, {
      retentionMs: this.opts.failedRetentionMs ?? FAILED_JOB_RETENTION_MS,
    });
    if (r.recorded > 0 || r.purged > 0) this.log.info('failed jobs recorded and purged', { ...r });
    return r;
  }

  /** Stops taking jobs and waits (up to `timeoutMs`) for the ones running. */
  async stop(timeoutMs = 5000): Promise<void> {
    clearInterval(this.purgeTimer);
    this.purgeTimer = undefined;
    await this.queue.close(timeoutMs).catch((e) => this.log.warn('queue close', { err: e instanceof Error ? e.message : String(e) }));
    // The purge in progress and the failures being recorded get a moment (with Redis or the database
    // away they would hold the stop); a failure not recorded now is recorded by the next purge.
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([Promise.all([this.purging, ...this.recording]), new Promise((r) => (timer = setTimeout(r, 2000)))]);
    clearTimeout(timer);
  }

  /**
   * Where a job's lease and done marker live. A relayed job's id names its outbox row (and part), whatever
   * queue carries it: its keys are shared by every queue, so a row relayed again onto another queue (its
   * job moved queue between two relays) waits for or skips the first run. Other ids (bee-queue's own
   * counters) are only unique within their queue. Markers written under the queue's name before this
   * change are not read: only a row relayed twice across the deploy could run twice.
   */
  private keyScope(jobId: string): string {
    return jobId.startsWith('outbox-') ? `${this.prefix}:outbox` : `${this.prefix}:${this.queueName}`;
  }

  /** The Redis key of the lease of the run of job `jobId` in progress (`JobLease`). */
  leaseKey(jobId: string): string {
    return `${this.keyScope(jobId)}:lease:${jobId}`;
  }

  /** The Redis key saying job `jobId` completed. */
  doneKey(jobId: string): string {
    return `${this.keyScope(jobId)}:done:${jobId}`;
  }

  private async run(job: BeeQueue.Job<JobEnvelope>): Promise<void> {
    const envelope: unknown = job.data;
    const label = check(JobEnvelope, envelope) ? envelope.job : 'unknown';
    const log = jobLogger(this.log, { job: label, job_id: job.id });
    const refuse = (message: string, problems: string[] = []): never => {
      this.opts.metrics.jobFailed(label);
      log.error('job rejected', { reason: message, problems });
      // A refused job fails for good: retrying cannot make it valid.
      job.options.retries = 0;
      throw new RejectedJobError(message, problems);
    };

    // Deferral is counted on the job itself (bee-queue saves its options with each retry): the first
    // deferral keeps the job's own retries and backoff aside (`newerRelease`) and sets the deferral's,
    // the ones after it spend them, the last refuses for good. A worker that knows the job puts the
    // job's own back before running it (`restoreOwnRetries`), so the job gets the budget it was written with.
    const options = job.options as typeof job.options & { newerRelease?: NewerReleaseDeferral };
    const deferToNewerRelease = (message: string): never => {
      if (options.newerRelease && (options.retries ?? 0) <= 0) return refuse(message);
      if (!options.newerRelease) {
        const deferral = this.opts.newerReleaseDeferral ?? NEWER_RELEASE_DEFERRAL;
        options.newerRelease = { retries: options.retries ?? 0, backoff: options.backoff ? { ...options.backoff } : null };
        options.retries = deferral.retries;
        options.backoff = { strategy: 'exponential', delay: deferral.backoffMs };
      }
      log.warn('job of a newer release: left for a worker that knows it', { reason: message, retries_left: options.retries });
      throw new NewerReleaseJobError(message);
    };
    const restoreOwnRetries = () => {
      const own = options.newerRelease;
      if (!own) return;
      options.retries = own.retries;
      if (own.backoff) options.backoff = own.backoff as typeof options.backoff;
      else delete (options as { backoff?: unknown }).backoff;
      delete options.newerRelease;
    };

    if (!check(JobEnvelope, envelope)) return refuse('malformed job envelope', payloadProblems(JobEnvelope, envelope));
    const def: JobDefinition | undefined = findJob(envelope.job);
    if (!def) return deferToNewerRelease(`unknown job ${envelope.job}`);
    // A job found on another queue than its definition names (written before the job moved, or to a
    // queue since retired) is still the job: run it here rather than fail it for good.
    if (def.queue !== this.queueName) log.info('job found on a former queue; run here', { definition_queue: def.queue });
    if (envelope.version > def.version) return deferToNewerRelease(`unsupported payload version ${envelope.version} (this worker knows ${def.version})`);
    if (envelope.version !== def.version) return refuse(`unsupported payload version ${envelope.version} (this worker knows ${def.version})`);
    restoreOwnRetries();
    const handler = this.opts.handlers[def.name] as JobHandler<JobDefinition> | undefined;
    if (!handler) return refuse(`no handler for job ${def.name}`);
    // A batch of a job that takes none (an older build batched it): refused for good like any envelope this worker cannot run.
    if (envelope.items && def.batch === undefined) return refuse(`job ${def.name} does not take batches`);
    if (!envelope.items && !check(def.payload, envelope.payload)) return refuse('invalid payload', payloadProblems(def.payload, envelope.payload));

    // One run of a job at a time: a run that outlived the job's timeout keeps going while bee-queue
    // starts the retry, which waits here for its lease (up to half its own time budget, then fails and
    // is retried later) and, once the first run finished the job, skips it on its done marker.
    const relayed = job.id.startsWith('outbox-');
    const doneKey = relayed && !envelope.items ? this.doneKey(job.id) : undefined;
    const budget = job.options.timeout ?? def.timeoutMs;
    const lease = await JobLease.acquire(this.opts.redis, this.leaseKey(job.id), doneKey, {
      waitMs: Math.max(100, Math.floor(budget / 2)),
      onLost: () => log.warn('job lease lost while the run goes on (another run may start)'),
    });
    if (lease === 'done') {
      this.opts.metrics.jobSkipped(def.name);
      log.info('job already processed; skipped');
      return;
    }
    const free = (done: boolean) =>
      lease.finish(done ? doneKey : undefined, DONE_MARKER_TTL_S).catch((e: unknown) => log.warn(done && doneKey ? 'could not write done marker' : 'could not free the job lease', { err: e instanceof Error ? e.message : String(e) }));

    if (envelope.items) {
      try {
        await this.runBatch(job.id, def, envelope.items, handler, log, (job.options.retries ?? 0) <= 0);
      } finally {
        await free(false);
      }
      return;
    }

    // bee-queue counts `retries` down as it re-queues a failed run: none left means this run is the last.
    const ctx: JobContext = { db: this.opts.db, log, clock: this.opts.clock, notifications: this.opts.notifications, jobId: job.id, finalAttempt: (job.options.retries ?? 0) <= 0 };
    const started = performance.now();
    try {
      await handler(envelope.payload as never, ctx);
    } catch (e) {
      await free(false);
      this.opts.metrics.jobFailed(def.name);
      // A failure no retry can cure fails for good now, instead of spending the job's retries on it.
      if (e instanceof UnrecoverableJobError) job.options.retries = 0;
      log.error('job failed', { err: e, retries_left: job.options.retries ?? 0 });
      throw e;
    }
    this.opts.metrics.jobProcessed(def.name);
    log.debug('job done', { ms: Math.round(performance.now() - started) });
    await free(true);
  }

  /**
   * A batch of relayed rows: each row is checked against the job's schema (a refused row fails for
   * good, the others run) and skipped when its done marker says it ran; the rest go to the job's batch
   * handler in one call (or, without one or when it throws, one by one). Done rows get their markers;
   * when a row failed, the batch fails and is retried as the job says, and only the failed rows run again.
   */
  private async runBatch(jobId: string, def: JobDefinition, items: readonly JobItem[], handler: JobHandler<JobDefinition>, log: Logger, finalAttempt: boolean): Promise<void> {
    const name = def.name;
    const valid: JobItem[] = [];
    for (const item of items) {
      if (check(def.payload, item.payload)) valid.push(item);
      else {
        this.opts.metrics.jobFailed(name);
        log.error('job rejected', { reason: 'invalid payload', outbox_id: item.outbox_id, problems: payloadProblems(def.payload, item.payload) });
      }
    }
    const keys = valid.map((i) => this.doneKey(outboxJobId({ id: i.outbox_id, created_at: new Date(i.enqueued_at) }, i.part)));
    const markers = keys.length ? await this.opts.redis.mget(...keys) : [];
    const todo: { item: JobItem; key: string }[] = [];
    valid.forEach((item, i) => {
      if (markers[i] === null) todo.push({ item, key: keys[i]! });
      else this.opts.metrics.jobSkipped(name);
    });
    if (todo.length === 0) return;

    const ctx: JobContext = { db: this.opts.db, log, clock: this.opts.clock, notifications: this.opts.notifications, jobId, finalAttempt };
    const started = performance.now();
    const batch = this.opts.batchHandlers?.[name] as BatchJobHandler<JobDefinition> | undefined;
    let outcomes: readonly (Error | null)[] | undefined;
    if (batch) {
      try {
        outcomes = await batch(todo.map((t) => t.item.payload as never), ctx);
        if (outcomes.length !== todo.length) throw new Error(`batch handler of ${name} answered ${outcomes.length} outcomes for ${todo.length} rows`);
      } catch (e) {
        log.warn('batch failed as a whole; running its rows one by one', { rows: todo.length, err: e });
        outcomes = undefined;
      }
    }
    if (!outcomes) {
      const each: (Error | null)[] = [];
      for (const { item, key } of todo) {
        try {
          await handler(item.payload as never, { ...ctx, jobId: key.slice(key.lastIndexOf(':') + 1) });
          each.push(null);
        } catch (e) {
          each.push(e instanceof Error ? e : new Error(String(e)));
        }
      }
      outcomes = each;
    }

    const done: string[] = [];
    const failed: { outbox_id: number; err: Error }[] = [];
    outcomes.forEach((err, i) => {
      const { item, key } = todo[i]!;
      if (err) {
        this.opts.metrics.jobFailed(name);
        failed.push({ outbox_id: item.outbox_id, err });
      } else {
        done.push(key);
      }
    });
    if (done.length > 0) {
      this.opts.metrics.jobProcessed(name, done.length);
      // One command for the batch's markers (a SET each in one script) instead of one command per row.
      await this.opts.redis.eval(MARK_DONE, done.length, ...done, DONE_MARKER_TTL_S).catch((e: unknown) => log.warn('could not write done markers', { err: e instanceof Error ? e.message : String(e) }));
    }
    log.debug('batch done', { rows: todo.length, failed: failed.length, ms: Math.round(performance.now() - started) });
    if (failed.length > 0) {
      for (const f of failed) log.error('job failed', { outbox_id: f.outbox_id, err: f.err });
      const first = failed[0]!.err;
      throw new Error(`${failed.length} of ${todo.length} rows of the batch failed; first: ${first.message}`, { cause: first });
    }
  }
}
