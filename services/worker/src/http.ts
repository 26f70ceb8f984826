import { sql } from 'kysely';
import type { CentralDb } from '@pos/db';
import type { HealthMonitor, HealthReport } from '@pos/core/health/check-dependencies';
import { JOBS } from '@pos/kernel/queues/index';
import type { WorkerMetrics } from './metrics.ts';

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8' } });

/** `GET /health` body: 200 `{status:'ok', checks}`, or 503 naming the failing dependencies. */
export function healthResponse(r: HealthReport): Response {
  if (r.status === 'ok') return json(200, { status: 'ok', checks: r.checks });
  const failing = Object.entries(r.checks)
    .filter(([, c]) => c.status === 'fail')
    .map(([name]) => name);
  return json(503, { status: 'fail', message: `Unhealthy: ${failing.join(', ')}`, checks: r.checks });
}

async function outboxGauges(db: CentralDb): Promise<{ pending: number; oldestPendingAgeS: number } | undefined> {
  try {
    const { rows } = await sql<{ pending: number; age: number | null }>`
      select count(*)::int as pending, extract(epoch from now() - min(created_at))::float8 as age
      from outbox where relayed_at is null`.execute(db);
    const r = rows[0];
    return r ? { pending: r.pending, oldestPendingAgeS: Math.max(0, r.age ?? 0) } : undefined;
  } catch {
    return undefined;
  }
}

/** The worker's HTTP surface: `GET /health` and `GET /metrics` (Prometheus text), nothing else. */
export function workerFetch(deps: { db: CentralDb; health: HealthMonitor; metrics: WorkerMetrics }): (req: Request) => Promise<Response> {
  const jobNames = JOBS.map((j) => j.name);
  return async (req) => {
    const { pathname } = new URL(req.url);
    if (req.method !== 'GET' && req.method !== 'HEAD') return new Response('Method Not Allowed', { status: 405 });
    if (pathname === '/health') return healthResponse(await deps.health.current());
    if (pathname === '/metrics') {
      const text = await deps.metrics.render(await outboxGauges(deps.db), jobNames);
      return new Response(text, { headers: { 'content-type': deps.metrics.registry.contentType } });
    }
    return new Response('Not Found', { status: 404 });
  };
}
