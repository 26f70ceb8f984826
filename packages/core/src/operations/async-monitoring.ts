import type Redis from 'ioredis';
import { QUEUE_PREFIX, QUEUES } from '@pos/kernel';

/**
 * Cross-tenant job monitoring (spec 1 "Transactions and reports", `global-admin`): bee-queue's own
 * Redis structures read directly, the same commands its `checkHealth` and `getJobs` run, so the API
 * needs no queue connection of its own: per queue `<prefix>:<queue>:waiting` and `:active` (lists),
 * `:succeeded` and `:failed` (sets), `:delayed` (sorted set), `:jobs` (hash id -> job JSON). A job's
 * tenant is the `merchant_id` (or `tenant_database`) of its payload; jobs without one are `central`.
 */
export const JOB_STATES = ['waiting', 'active', 'delayed', 'failed', 'succeeded'] as const;
export type JobState = (typeof JOB_STATES)[number];

export interface QueueCounts {
  queue: string;
  waiting: number;
  active: number;
  delayed: number;
  failed: number;
  succeeded: number;
  newest_job_id: number;
}

const queueNames = (): string[] => Object.values(QUEUES);
const key = (prefix: string, queue: string, k: string) => `${prefix}:${queue}:${k}`;

export async function queueCounts(redis: Redis, prefix = QUEUE_PREFIX): Promise<QueueCounts[]> {
  return Promise.all(
    queueNames().map(async (queue) => {
      const r = (await redis
        .multi()
        .llen(key(prefix, queue, 'waiting'))
        .llen(key(prefix, queue, 'active'))
        .zcard(key(prefix, queue, 'delayed'))
        .scard(key(prefix, queue, 'failed'))
        .scard(key(prefix, queue, 'succeeded'))
        .get(key(prefix, queue, 'id'))
        .exec()) as [Error | null, unknown][];
      const n = (i: number) => Number(r[i]?.[1] ?? 0) || 0;
      return { queue, waiting: n(0), active: n(1), delayed: n(2), failed: n(3), succeeded: n(4), newest_job_id: n(5) };
    }),
  );
}

export interface JobRow {
  queue: string;
  id: string;
  state: Exclude<JobState, 'succeeded'>;
  job: string | null;
  tenant: string;
  enqueued_at: string | null;
  /** The last failure's first line (no stack), for failed jobs. */
  error: string | null;
}

function tenantOf(payload: unknown): string {
  const p = (payload ?? {}) as Record<string, unknown>;
  const v = p.merchant_id ?? p.tenant_database ?? p.tenant;
  return typeof v === 'string' && v ? v : 'central';
}

async function idsOf(redis: Redis, prefix: string, queue: string, state: Exclude<JobState, 'succeeded'>, limit: number): Promise<string[]> {
  const k = key(prefix, queue, state);
  if (state === 'waiting' || state === 'active') return redis.lrange(k, 0, limit - 1);
  if (state === 'delayed') return redis.zrange(k, '0', String(limit - 1));
  // A set has no order: SSCAN until `limit` ids, as bee-queue's getJobs does.
  const out = new Set<string>();
  let cursor = '0';
  do {
    const [next, ids] = await redis.sscan(k, cursor, 'COUNT', String(Math.max(limit, 10)));
    for (const id of ids) if (out.size < limit) out.add(id);
    cursor = next;
  } while (cursor !== '0' && out.size < limit);
  return [...out];
}

/** The newest jobs not yet succeeded (up to `limit`), newest first over every queue. */
export async function listJobs(redis: Redis, limit: number, prefix = QUEUE_PREFIX): Promise<JobRow[]> {
  return (await collectJobs(redis, limit, prefix)).slice(0, limit);
}

/** Up to `limit` jobs of each queue and state (not succeeded), newest first. */
async function collectJobs(redis: Redis, limit: number, prefix: string): Promise<JobRow[]> {
  const rows: JobRow[] = [];
  for (const queue of queueNames()) {
    for (const state of ['active', 'waiting', 'delayed', 'failed'] as const) {
      const ids = await idsOf(redis, prefix, queue, state, limit);
      if (!ids.length) continue;
      const raw = await redis.hmget(key(prefix, queue, 'jobs'), ...ids);
      ids.forEach((id, i) => {
        let parsed: { data?: { job?: unknown; payload?: unknown; enqueued_at?: unknown }; options?: { stacktraces?: unknown[] } } = {};
        try {
          parsed = raw[i] ? JSON.parse(raw[i]!) : {};
        } catch {
          parsed = {};
        }
        const trace = parsed.options?.stacktraces?.[0];
        rows.push({
          queue,
          id,
          state,
          job: typeof parsed.data?.job === 'string' ? parsed.data.job : null,
          tenant: tenantOf(parsed.data?.payload),
          enqueued_at: typeof parsed.data?.enqueued_at === 'string' ? parsed.data.enqueued_at : null,
          error: typeof trace === 'string' ? trace.split('\n')[0]!.slice(0, 300) : null,
        });
      });
    }
  }
  rows.sort((x, y) => Number(y.id) - Number(x.id) || x.queue.localeCompare(y.queue));
  return rows;
}

export interface MonitoringSummary {
  totals: Omit<QueueCounts, 'queue' | 'newest_job_id'>;
  /** Pending (waiting, active, delayed) and failed jobs per tenant, most failed first. */
  by_tenant: { tenant: string; pending: number; failed: number }[];
}

/** Totals over the queues, and per tenant over up to `scan` jobs of each queue and state. */
export async function monitoringSummary(redis: Redis, prefix = QUEUE_PREFIX, scan = 1000): Promise<MonitoringSummary> {
  const counts = await queueCounts(redis, prefix);
  const totals = { waiting: 0, active: 0, delayed: 0, failed: 0, succeeded: 0 };
  for (const c of counts) for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += c[k];
  const per = new Map<string, { pending: number; failed: number }>();
  for (const row of await collectJobs(redis, scan, prefix)) {
    const t = per.get(row.tenant) ?? { pending: 0, failed: 0 };
    if (row.state === 'failed') t.failed++;
    else t.pending++;
    per.set(row.tenant, t);
  }
  const by_tenant = [...per.entries()].map(([tenant, v]) => ({ tenant, ...v })).sort((a, b) => b.failed - a.failed || b.pending - a.pending || a.tenant.localeCompare(b.tenant));
  return { totals, by_tenant };
}
