import type Redis from 'ioredis';
import { sql } from 'kysely';
import type { CentralDb } from '@pos/db';

/** A failed bee-queue job is kept in Redis this long after its failure, then purged (its `job_failures` row stays). */
export const FAILED_JOB_RETENTION_MS = 7 * 24 * 3_600_000;
/** The `job_failures` rows are kept this long (the operator's record, longer than Redis keeps the job). */
export const JOB_FAILURE_RECORD_RETENTION_MS = 90 * 24 * 3_600_000;
/** Between two purges of a queue's failed jobs (the first at start). */
export const FAILED_JOB_PURGE_MS = 3_600_000;

const MAX_ERROR = 2000;

/** What bee-queue stores of a job in `<prefix>:<queue>:jobs` (`Job#toData`). */
interface StoredJob {
  data?: unknown;
  options?: { stacktraces?: unknown[] };
}

export interface FailedJob {
  prefix: string;
  queue: string;
  jobId: string;
  /** The job's data: our envelope (`{ job, version, payload, outbox_id?, items? }`) or whatever a writer left. */
  envelope: unknown;
  /** The last run's error (its message line only: no stack in the record). */
  error: string;
  runs: number;
}

function field(envelope: unknown, name: string): unknown {
  return envelope && typeof envelope === 'object' ? (envelope as Record<string, unknown>)[name] : undefined;
}

function firstLine(s: string): string {
  const line = s.split('\n', 1)[0] ?? '';
  return line.length > MAX_ERROR ? line.slice(0, MAX_ERROR) : line;
}

/** The failed job as bee-queue stored it (`raw` the hash value; null when the hash lost it). */
export function failedJobFromStore(prefix: string, queue: string, jobId: string, raw: string | null): FailedJob {
  let stored: StoredJob = {};
  try {
    stored = raw ? (JSON.parse(raw) as StoredJob) : {};
  } catch {
    stored = {};
  }
  const traces = Array.isArray(stored.options?.stacktraces) ? stored.options.stacktraces : [];
  return {
    prefix,
    queue,
    jobId,
    envelope: stored.data ?? null,
    error: firstLine(traces.length ? String(traces[0]) : raw ? 'failed (no error recorded)' : 'failed (job data missing)'),
    runs: traces.length,
  };
}

/** Records a job that failed for good (once per job: a record already there is kept with its time). */
export async function recordFailedJobs(db: CentralDb, jobs: readonly FailedJob[], at?: Date): Promise<void> {
  if (jobs.length === 0) return;
  await db
    .insertInto('job_failures')
    .values(
      jobs.map((j) => {
        const job = field(j.envelope, 'job');
        const outbox = field(j.envelope, 'outbox_id');
        return {
          prefix: j.prefix,
          queue: j.queue,
          job_id: j.jobId,
          job: typeof job === 'string' && job.length > 0 ? job.slice(0, 200) : 'unknown',
          outbox_id: Number.isSafeInteger(outbox) ? (outbox as number) : null,
          envelope: j.envelope === null || j.envelope === undefined ? null : JSON.stringify(j.envelope),
          error: j.error,
          runs: j.runs,
          ...(at ? { failed_at: at } : {}),
        };
      }),
    )
    .onConflict((oc) => oc.columns(['prefix', 'queue', 'job_id']).doNothing())
    .execute();
}

export interface FailedPurgeResult {
  /** Failed jobs found without a record (failed while the database was away, or before records existed): recorded now. */
  recorded: number;
  /** Failed jobs removed from Redis: recorded more than the retention ago. */
  purged: number;
}

/**
 * Purges the failed jobs of one queue that failed more than `retentionMs` before `now`, as done jobs
 * are removed: bee-queue keeps failed jobs forever otherwise. A failed job is recorded in `job_failures`
 * first (a job without a record gets one now, and is purged `retentionMs` later), so nothing the operator
 * needs goes with it. Also deletes the records older than `recordRetentionMs`.
 */
export async function purgeFailedJobs(
  db: CentralDb,
  redis: Redis,
  q: { prefix: string; queue: string },
  now: Date,
  opts: { retentionMs?: number; recordRetentionMs?: number; chunk?: number } = {},
): Promise<FailedPurgeResult> {
  const retentionMs = opts.retentionMs ?? FAILED_JOB_RETENTION_MS;
  const base = `${q.prefix}:${q.queue}`;
  const cutoff = now.getTime() - retentionMs;
  let recorded = 0;
  let purged = 0;
  let cursor = '0';
  do {
    const [next, ids] = await redis.sscan(`${base}:failed`, cursor, 'COUNT', opts.chunk ?? 500);
    cursor = next;
    if (ids.length === 0) continue;
    const known = new Map(
      (
        await db
          .selectFrom('job_failures')
          .select(['job_id', 'failed_at'])
          .where('prefix', '=', q.prefix)
          .where('queue', '=', q.queue)
          .where(sql<boolean>`job_id = any(${ids}::text[])`)
          .execute()
      ).map((r) => [r.job_id, r.failed_at.getTime()]),
    );
    const missing = ids.filter((id) => !known.has(id));
    if (missing.length > 0) {
      const raws = await redis.hmget(`${base}:jobs`, ...missing);
      await recordFailedJobs(db, missing.map((id, i) => failedJobFromStore(q.prefix, q.queue, id, raws[i] ?? null)), now);
      recorded += missing.length;
    }
    const old = ids.filter((id) => (known.get(id) ?? Infinity) < cutoff);
    if (old.length > 0) {
      await redis.multi().srem(`${base}:failed`, ...old).hdel(`${base}:jobs`, ...old).exec();
      purged += old.length;
    }
  } while (cursor !== '0');
  // The envelope (a notification's address and text, say) is kept as long as the job itself and its outbox
  // row are, not for the record's 90 days: what failed, when and why stays.
  await db
    .updateTable('job_failures')
    .set({ envelope: null })
    .where('prefix', '=', q.prefix)
    .where('queue', '=', q.queue)
    .where('failed_at', '<', new Date(cutoff))
    .where('envelope', 'is not', null)
    .execute();
  await db
    .deleteFrom('job_failures')
    .where('prefix', '=', q.prefix)
    .where('queue', '=', q.queue)
    .where('failed_at', '<', new Date(now.getTime() - (opts.recordRetentionMs ?? JOB_FAILURE_RECORD_RETENTION_MS)))
    .execute();
  return { recorded, purged };
}
