import { sql } from 'kysely';
import type { Logger } from '@pos/kernel';
import { listenOutbox, type CentralDb, type OutboxListener } from '@pos/db';
import { createQueue, FAN_OUT_JOB, JOBS, QUEUE_PREFIX, rowMessages, type JobDefinition, type JobEnvelope, type JobQueue } from '@pos/kernel/queues/index';
import type { WorkerMetrics } from './metrics.ts';

export interface OutboxRelayOptions {
  db: CentralDb;
  redisUrl: string;
  log: Logger;
  metrics?: WorkerMetrics;
  /** Redis key prefix of the queues (default `bq`). */
  prefix?: string;
  /** Rows per transaction (default 500). */
  batchSize?: number;
  /** Pause between polls when there is nothing left (default 250 ms). */
  intervalMs?: number;
  /** Longest pause after Redis failures (default 5000 ms; the pause doubles from `intervalMs`). */
  maxBackoffMs?: number;
  /** A Redis call taking longer counts as a failure (default 5000 ms). */
  redisTimeoutMs?: number;
  /** The jobs this relay moves; rows of other jobs wait for a worker that knows them. Default: every known job. */
  jobs?: readonly JobDefinition[];
  /** Polls in flight at once (default 2; each its own transaction, apart through SKIP LOCKED). */
  loops?: number;
  /** Wake up on `NOTIFY outbox_pending` (sent at the commit of every transaction that wrote outbox rows); default true. The poll stays as the fallback. */
  listen?: boolean;
  /** How long relayed rows are kept (for looking into what ran) before the relay deletes them (default 7 days). */
  retentionMs?: number;
  /** Between two purges of relayed rows past their retention (default 1 hour; the first at start). */
  purgeIntervalMs?: number;
  /** Rows deleted per purge statement (default 5000), so a purge never holds many locks for long. */
  purgeChunk?: number;
}

/** Relayed rows are kept a week: long enough to look into a job, short enough that the outbox stays small. */
export const OUTBOX_RETENTION_MS = 7 * 24 * 3_600_000;

export interface RelayResult {
  relayed: number;
  failed: number;
}

/**
 * Locks and marks `relayed_at` on up to `batchSize` pending rows of known jobs, oldest first, answering
 * them. A fan-out row is taken when its messages are an array of objects each naming (as a string) a job
 * in `names`; a row of another shape (a newer or broken writer) waits like a row of an unknown job, and
 * never reaches `jsonb_array_elements` (the CASE guards it), whose error on a non-array failed every poll.
 * The rows are picked by the pending index and then updated by their ids (`= any(array(...))`, the pick
 * run once): joined as a subquery instead, the planner hashed it against a scan of the whole table,
 * which holds a week of relayed rows (`OUTBOX_RETENTION_MS`), so every poll read all of them.
 */
export function markPending(names: readonly string[], batchSize: number) {
  return sql<PendingRow>`
    update outbox o set relayed_at = clock_timestamp()
    where o.id = any(array(select id from outbox
      where relayed_at is null
        and (job = any(${names}::text[])
          or (job = ${FAN_OUT_JOB} and case when jsonb_typeof(payload->'messages') = 'array' then not exists (
            select 1 from jsonb_array_elements(payload->'messages') m
            where jsonb_typeof(m) is distinct from 'object' or jsonb_typeof(m->'job') is distinct from 'string' or not (m->>'job' = any(${names}::text[]))) else false end))
      order by id limit ${batchSize} for update skip locked))
    returning o.id, o.job, o.queue, o.payload, o.created_at`;
}

interface PendingRow {
  id: number;
  job: string;
  queue: string;
  payload: unknown;
  created_at: Date;
}

/** One job's message of a row: the row itself, or one message of a fan-out row (`part`, its place). */
interface RelayUnit {
  row: PendingRow;
  part: number | undefined;
  payload: unknown;
  def: JobDefinition;
}

/**
 * The bee-queue job id of an outbox row: `outbox-<id>-<created_at in base 36 ms>`. Relaying a row
 * again (a crash between the Redis write and the commit) reuses the id, and bee-queue's addJob
 * ignores an id it still holds (waiting, active, delayed or failed); a job that already succeeded
 * and was removed is caught by the processor's done marker. The creation time keeps ids distinct when
 * the database is recreated while Redis keeps its keys (outbox ids then start again at 1).
 */
export function outboxJobId(row: { id: number; created_at: Date }, part?: number): string {
  const id = `outbox-${row.id}-${row.created_at.getTime().toString(36)}`;
  return part === undefined ? id : `${id}-p${part}`;
}

/**
 * The bee-queue job id of a batch: its first row's id (as `outboxJobId`, with its fan-out part) and its
 * row count. A batch relayed again with the same rows reuses it; a batch cut differently after a crash
 * gets another id, and the processor's per-row done markers skip the rows that already ran.
 */
export function outboxBatchId(first: { id: number; created_at: Date }, part: number | undefined, rows: number): string {
  return `${outboxJobId(first, part)}-x${rows}`;
}

/**
 * The bee-queue jobs of one queue's rows, in id order: one per row, except that consecutive rows of
 * a job with `batch` go together, up to `batch` rows per job.
 */
function bundle<T extends { def: JobDefinition }>(group: readonly T[]): T[][] {
  const out: T[][] = [];
  const open = new Map<string, T[]>();
  for (const g of group) {
    const max = g.def.batch;
    if (max === undefined) {
      out.push([g]);
      continue;
    }
    let b = open.get(g.def.name);
    if (!b || b.length >= max) {
      b = [];
      open.set(g.def.name, b);
      out.push(b);
    }
    b.push(g);
  }
  return out;
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/**
 * Moves after-commit work from the `outbox` table to bee-queue (DESIGN 2 "After-commit work").
 *
 * Each poll, in one transaction: lock and mark `relayed_at` up to `batchSize` pending rows of known
 * jobs in id order (`FOR UPDATE SKIP LOCKED`, so several workers can relay side by side), write them
 * to their queues (pipelined per queue, job id from `outboxJobId`), then put the rows Redis refused
 * back pending with one more `attempts`; nothing is marked unless the commit follows. After a failure the relay waits
 * longer (doubling up to `maxBackoffMs`); `trigger()` asks for a poll now. Once an hour it deletes
 * the rows relayed more than `retentionMs` ago (`purgeRelayed`): without it the outbox kept every job ever run.
 */
export class OutboxRelay {
  private readonly db: CentralDb;
  private readonly log: Logger;
  private readonly opts: Required<Omit<OutboxRelayOptions, 'db' | 'log' | 'metrics' | 'jobs' | 'listen' | 'loops'>>;
  private lastPurge = 0;
  private purging = false;
  private readonly loops: number;
  private readonly jobs: ReadonlyMap<string, JobDefinition>;
  private readonly queues = new Map<string, JobQueue>();
  private running: Promise<void> | undefined;
  private stopped = true;
  /** The wake-ups of the loops waiting for their next poll. */
  private readonly wakers = new Set<() => void>();
  private pokes = 0;
  private listener: OutboxListener | undefined;
  private delayMs: number;

  constructor(private readonly options: OutboxRelayOptions) {
    this.db = options.db;
    this.log = options.log.child({ component: 'outbox-relay' });
    this.opts = {
      redisUrl: options.redisUrl,
      prefix: options.prefix ?? QUEUE_PREFIX,
      batchSize: options.batchSize ?? 500,
      intervalMs: options.intervalMs ?? 250,
      maxBackoffMs: options.maxBackoffMs ?? 5000,
      redisTimeoutMs: options.redisTimeoutMs ?? 5000,
      retentionMs: options.retentionMs ?? OUTBOX_RETENTION_MS,
      purgeIntervalMs: options.purgeIntervalMs ?? 3_600_000,
      purgeChunk: options.purgeChunk ?? 5000,
    };
    this.jobs = new Map((options.jobs ?? (JOBS as readonly JobDefinition[])).map((j) => [j.name, j]));
    this.delayMs = this.opts.intervalMs;
    this.loops = Math.max(1, options.loops ?? 2);
  }

  /** Starts polling in the background. */
  start(): void {
    if (this.running) return;
    this.stopped = false;
    // A commit anywhere (API capture, a job's follow-up rows) wakes the relay within a millisecond or
    // two, instead of waiting up to `intervalMs` for the next poll.
    if (this.options.listen ?? true) {
      try {
        this.listener = listenOutbox(this.db, () => this.trigger(), { onError: (err) => this.log.warn('outbox listener lost its connection; polling until it is back', { err: err.message }) });
      } catch (e) {
        // A database handle without its pool (not made by createDatabase): the poll alone wakes the relay.
        this.log.warn('outbox relay not woken by notifications; polling only', { err: e instanceof Error ? e.message : String(e) });
      }
    }
    // Several polls in flight: one loop's rows travel to Redis while the next rows are locked and
    // marked (SKIP LOCKED keeps them apart), so the relay is not one round trip after another.
    this.running = Promise.all(Array.from({ length: this.loops }, () => this.loop())).then(() => {});
  }

  /** True while the relay is woken by notifications (not only by its poll). */
  get listening(): boolean {
    return this.listener?.listening ?? false;
  }

  /** Polls as soon as the current poll (if any) is done. */
  trigger(): void {
    this.pokes++;
    for (const wake of this.wakers) wake();
  }

  /** Stops polling (waits for the poll in progress) and closes the queue connections. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.listener?.close();
    this.listener = undefined;
    for (const wake of this.wakers) wake();
    await this.running;
    this.running = undefined;
    const queues = [...this.queues.values()];
    this.queues.clear();
    await Promise.all(queues.map((q) => q.close(2000).catch(() => {})));
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      if (!this.purging && Date.now() - this.lastPurge >= this.opts.purgeIntervalMs) {
        this.purging = true;
        this.lastPurge = Date.now();
        await this.purgeRelayed()
          .catch((e: unknown) => this.log.warn('outbox purge failed', { err: e instanceof Error ? e.message : String(e) }))
          .finally(() => (this.purging = false));
      }
      const pokes = this.pokes;
      let full = false;
      try {
        const r = await this.runOnce();
        full = r.relayed + r.failed >= this.opts.batchSize && r.failed === 0;
        this.delayMs = r.failed > 0 ? Math.min(this.delayMs * 2, this.opts.maxBackoffMs) : this.opts.intervalMs;
      } catch (e) {
        // The database is away: same backoff as for Redis.
        this.delayMs = Math.min(this.delayMs * 2, this.opts.maxBackoffMs);
        this.log.warn('outbox poll failed', { err: e, retry_in_ms: this.delayMs });
      }
      if (this.stopped) break;
      if (full || this.pokes !== pokes) continue; // more rows waiting, or asked while polling
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.wakers.delete(done);
          resolve();
        };
        const timer = setTimeout(done, this.delayMs);
        this.wakers.add(done);
      });
    }
  }

  /**
   * Deletes the rows relayed more than `retentionMs` ago, `purgeChunk` at a time (rows another relay
   * has locked are skipped); rows still pending are never touched, however old. Answers how many went.
   */
  async purgeRelayed(): Promise<number> {
    let deleted = 0;
    for (;;) {
      const r = await sql`
        delete from outbox where id = any(array(
          select id from outbox where relayed_at < now() - make_interval(secs => ${this.opts.retentionMs / 1000})
          order by id limit ${this.opts.purgeChunk} for update skip locked))`.execute(this.db);
      const n = Number(r.numAffectedRows ?? 0n);
      deleted += n;
      // A relay asked to stop leaves the rest to the next purge.
      if (n < this.opts.purgeChunk || (this.running && this.stopped)) break;
    }
    if (deleted > 0) this.log.info('relayed outbox rows purged', { deleted });
    return deleted;
  }

  /** One poll: relays at most one batch. Rejects only when the database fails. */
  async runOnce(): Promise<RelayResult> {
    const names = [...this.jobs.keys()];
    if (names.length === 0) return { relayed: 0, failed: 0 };
    const result = await this.db.transaction().execute(async (trx) => {
      // Locked and marked in one statement (one tuple write per row instead of a lock and an update);
      // the rows Redis refuses are put back pending before the commit.
      const marked = await markPending(names, this.opts.batchSize).execute(trx);
      const rows = marked.rows.sort((a, b) => a.id - b.id); // int8 ids arrive as numbers (see @pos/db database.ts)
      if (rows.length === 0) return { relayed: 0, failed: 0 };

      // A row is relayed when every job it carries was written; otherwise it goes back pending whole
      // (the parts written already keep their job ids, and done markers skip what ran).
      const failed = new Set<number>();
      for (const [queueName, group] of this.groupByQueue(this.units(rows))) {
        for (const id of await this.writeToQueue(queueName, group)) failed.add(id);
      }
      const failedIds = [...failed];
      const relayedIds = rows.filter((r) => !failed.has(r.id));
      if (failedIds.length > 0) {
        await trx
          .updateTable('outbox')
          .set((eb) => ({ relayed_at: null, attempts: eb('attempts', '+', 1) }))
          .where(sql<boolean>`id = any(${failedIds.map(String)}::bigint[])`)
          .execute();
      }
      return { relayed: relayedIds.length, failed: failedIds.length };
    });

    const m = this.options.metrics;
    m?.outboxPolled(result.relayed, result.failed);
    if (result.relayed > 0) this.log.debug('outbox relayed', { rows: result.relayed });
    return result;
  }

  /** The jobs' messages of the rows in id order: a row's own, or each message of a fan-out row in its order. */
  private units(rows: readonly PendingRow[]): RelayUnit[] {
    const out: RelayUnit[] = [];
    for (const row of rows) {
      for (const m of rowMessages(row)) {
        const def = this.jobs.get(m.job);
        if (!def) continue; // not selected: the query takes only rows whose every job this relay knows
        if (m.part === undefined && row.queue !== def.queue) this.log.warn('outbox row names another queue than its job', { outbox_id: row.id, job: row.job, row_queue: row.queue, queue: def.queue });
        out.push({ row, part: m.part, payload: m.payload, def });
      }
    }
    return out;
  }

  /** Units by their job's queue (the registry decides, not the row), keeping their order within each. */
  private groupByQueue(units: readonly RelayUnit[]): Map<string, RelayUnit[]> {
    const groups = new Map<string, RelayUnit[]>();
    for (const u of units) {
      const g = groups.get(u.def.queue);
      if (g) g.push(u);
      else groups.set(u.def.queue, [u]);
    }
    return groups;
  }

  /** Writes one queue's units; answers the ids of the rows whose units Redis refused. */
  private async writeToQueue(queueName: string, group: RelayUnit[]): Promise<number[]> {
    const queue = this.queue(queueName);
    try {
      const jobs = bundle(group).map((units) => {
        const def = units[0]!.def;
        const first = units[0]!;
        const data: JobEnvelope =
          def.batch === undefined
            ? { job: def.name, version: def.version, payload: first.payload ?? null, outbox_id: first.row.id, enqueued_at: first.row.created_at.toISOString() }
            : {
                job: def.name,
                version: def.version,
                payload: null,
                // A message without a payload travels as null, refused alone by the processor: left out, it made the whole batch's envelope malformed.
                items: units.map((u) => ({ outbox_id: u.row.id, enqueued_at: u.row.created_at.toISOString(), ...(u.part === undefined ? {} : { part: u.part }), payload: u.payload ?? null })),
              };
        // A batch has each row's time budget (its handler may run them one after the other).
        const id = def.batch === undefined ? outboxJobId(first.row, first.part) : outboxBatchId(first.row, first.part, units.length);
        const job = queue.createJob(data).setId(id).timeout(def.timeoutMs * units.length);
        if (def.retries > 0) job.retries(def.retries).backoff('exponential', def.backoffMs);
        return { units, job };
      });
      await withTimeout(queue.ready(), this.opts.redisTimeoutMs, `connecting to queue ${queueName}`);
      const errors = await withTimeout(queue.saveAll(jobs.map((j) => j.job)), this.opts.redisTimeoutMs, `writing to queue ${queueName}`);
      const failed: number[] = [];
      for (const { units, job } of jobs) {
        const err = errors.get(job);
        if (!err) continue; // a null job id means bee-queue already held it: relayed before
        for (const u of units) {
          failed.push(u.row.id);
          this.log.warn('outbox row not relayed', { outbox_id: u.row.id, job: u.def.name, ...(u.part === undefined ? {} : { part: u.part }), err: err.message });
        }
      }
      // Whatever went wrong (NOSCRIPT after a Redis restart, a lost connection), a fresh queue is the cure.
      if (failed.length > 0) this.dropQueue(queueName, queue);
      return failed;
    } catch (e) {
      // Connection refused, lost or too slow: drop the queue (a failed connect does not recover) and retry later.
      this.dropQueue(queueName, queue);
      this.log.warn('outbox relay could not reach Redis; rows stay pending', { queue: queueName, rows: group.length, err: e instanceof Error ? e.message : String(e), retry_in_ms: Math.min(this.delayMs * 2, this.opts.maxBackoffMs) });
      return group.map((u) => u.row.id);
    }
  }

  private dropQueue(name: string, queue: JobQueue): void {
    if (this.queues.get(name) === queue) this.queues.delete(name);
    queue.close(500).catch(() => {});
  }

  private queue(name: string): JobQueue {
    let q = this.queues.get(name);
    if (!q) {
      q = createQueue(name, this.opts.redisUrl, {
        prefix: this.opts.prefix,
        onError: (err) => this.log.warn('queue connection error', { queue: name, err: err.message }),
      });
      this.queues.set(name, q);
    }
    return q;
  }
}
