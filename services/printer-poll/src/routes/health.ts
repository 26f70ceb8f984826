import { Elysia } from 'elysia';
import type { HealthReport } from '@pos/core/health/check-dependencies';
import type { PrinterPollDeps } from '../context.ts';

/** `GET /health`: 200 `{status:'ok', checks:{database, redis}}`, or 503 naming the failing dependencies. */
export function healthRoutes(deps: PrinterPollDeps) {
  const body = (r: HealthReport) => {
    if (r.status === 'ok') return { status: 'ok', checks: r.checks };
    const failing = Object.entries(r.checks)
      .filter(([, c]) => c.status === 'fail')
      .map(([name]) => name);
    return { status: 'fail', message: `Unhealthy: ${failing.join(', ')}`, checks: r.checks };
  };
  return new Elysia({ name: 'printer-poll-health' }).get('/health', async ({ status }) => {
    const r = await deps.health.current();
    return r.status === 'ok' ? body(r) : status(503, body(r));
  });
}
