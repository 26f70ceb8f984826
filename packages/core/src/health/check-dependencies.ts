import { sql } from 'kysely';
import type Redis from 'ioredis';
import type { CentralDb } from '@pos/db';

export type CheckStatus = 'ok' | 'fail';
export interface DependencyCheck {
  status: CheckStatus;
  latency_ms: number;
  error?: string;
}
export interface HealthReport {
  status: CheckStatus;
  checked_at: string;
  checks: { database: DependencyCheck; redis: DependencyCheck };
}

const TIMEOUT_MS = 2000;

async function timed(work: () => Promise<unknown>): Promise<DependencyCheck> {
  const started = performance.now();
  try {
    await Promise.race([
      work(),
      new Promise((_, reject) => setTimeout(() => reject(new Error(`timed out after ${TIMEOUT_MS} ms`)), TIMEOUT_MS)),
    ]);
    return { status: 'ok', latency_ms: Math.round(performance.now() - started) };
  } catch (e) {
    // The message names the failure kind, never a connection string.
    const code = (e as { code?: string }).code;
    return { status: 'fail', latency_ms: Math.round(performance.now() - started), error: code ? `unreachable (${code})` : 'unreachable' };
  }
}

/** Real round trips to PostgreSQL and Redis. */
export async function checkDependencies(db: CentralDb, redis: Redis, now: () => Date = () => new Date()): Promise<HealthReport> {
  const [database, redisCheck] = await Promise.all([
    timed(() => sql`select 1`.execute(db)),
    timed(async () => {
      // Not connected: fail now rather than wait in ioredis's offline queue.
      if (redis.status !== 'ready') throw Object.assign(new Error('not connected'), { code: redis.status.toUpperCase() });
      if ((await redis.ping()) !== 'PONG') throw new Error('bad ping');
    }),
  ]);
  return {
    status: database.status === 'ok' && redisCheck.status === 'ok' ? 'ok' : 'fail',
    checked_at: now().toISOString(),
    checks: { database, redis: redisCheck },
  };
}

/** Caches the report for `ttlMs` so probes do not hammer the databases; `fresh()` bypasses it. */
export class HealthMonitor {
  private cached: { at: number; report: HealthReport } | undefined;
  private inflight: Promise<HealthReport> | undefined;

  constructor(
    private readonly run: () => Promise<HealthReport>,
    private readonly ttlMs = 5000,
    private readonly nowMs: () => number = () => Date.now(),
  ) {}

  async current(): Promise<HealthReport> {
    const c = this.cached;
    if (c && this.nowMs() - c.at < this.ttlMs) return c.report;
    return this.fresh();
  }

  async fresh(): Promise<HealthReport> {
    // Concurrent probes share one round trip.
    this.inflight ??= this.run().finally(() => (this.inflight = undefined));
    const report = await this.inflight;
    this.cached = { at: this.nowMs(), report };
    return report;
  }
}
