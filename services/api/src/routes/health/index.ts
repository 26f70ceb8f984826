import { Elysia, t } from 'elysia';
import type { HealthReport } from '@pos/core/health/check-dependencies';
import type { ApiDeps } from '../../context.ts';

const Status = t.Union([t.Literal('ok'), t.Literal('fail')]);
const Check = t.Object({ status: Status, latency_ms: t.Number(), error: t.Optional(t.String()) });
const Detailed = t.Object({
  status: Status,
  checked_at: t.String(),
  checks: t.Object({ database: Check, redis: Check }),
  message: t.Optional(t.String()),
});
const Simple = t.Object({ status: t.String(), message: t.Optional(t.String()) });
const Summary = t.Object({ status: Status, environment: t.String(), uptime_s: t.Number(), checked_at: t.String() });

function failing(r: HealthReport): string[] {
  return Object.entries(r.checks)
    .filter(([, c]) => c.status === 'fail')
    .map(([name]) => name);
}

/** Health routes (spec 1 "Public"): real PostgreSQL and Redis checks, cached except /health/fresh; a failure is 503. */
export function healthRoutes(deps: ApiDeps) {
  const startedAt = Date.now();
  const doc = (summary: string) => ({ tags: ['Health'], summary });
  const unavailable = { status: 'fail', message: 'Service Unavailable' };
  const detailedBody = (r: HealthReport) => (r.status === 'ok' ? r : { ...r, message: `Unhealthy: ${failing(r).join(', ')}` });

  return new Elysia({ name: 'health' })
    .get('/health', async ({ status }) => ((await deps.health.current()).status === 'ok' ? { status: 'ok' } : status(503, unavailable)), {
      response: { 200: Simple, 503: Simple },
      detail: doc('Liveness with dependency checks (cached)'),
    })
    .get('/health/readiness', async ({ status }) => ((await deps.health.current()).status === 'ok' ? { status: 'ready' } : status(503, unavailable)), {
      response: { 200: Simple, 503: Simple },
      detail: doc('Readiness (cached)'),
    })
    .get(
      '/health/detailed',
      async ({ status }) => {
        const r = await deps.health.current();
        return r.status === 'ok' ? r : status(503, detailedBody(r));
      },
      { response: { 200: Detailed, 503: Detailed }, detail: doc('Each dependency with its latency (cached); a failure names it') },
    )
    .get(
      '/health/fresh',
      async ({ status }) => {
        const r = await deps.health.fresh();
        return r.status === 'ok' ? r : status(503, detailedBody(r));
      },
      { response: { 200: Detailed, 503: Detailed }, detail: doc('Same as detailed, bypassing the cache') },
    )
    .get(
      '/health/status',
      async ({ status }) => {
        const r = await deps.health.current();
        const body = { status: r.status, environment: deps.env, uptime_s: Math.floor((Date.now() - startedAt) / 1000), checked_at: r.checked_at };
        return r.status === 'ok' ? body : status(503, body);
      },
      { response: { 200: Summary, 503: Summary }, detail: doc('Summary status') },
    );
}
