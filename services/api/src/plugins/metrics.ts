import { createHash, timingSafeEqual } from 'node:crypto';
import { Elysia } from 'elysia';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import { dbQueryCount } from '@pos/db';
import { refusedBeforeRouting } from '../request-guard/request-guard.ts';
import type { RoutePatterns } from './route-patterns.ts';

/**
 * Prometheus metrics for this API process at `GET /metrics` (outside `/api`: operators scrape it, clients
 * never call it): request count and latency per route, statements sent to PostgreSQL, and the process's
 * default metrics (CPU, memory, event-loop lag). Each process keeps its own figures; with several
 * processes on one port (reusePort) a scrape reaches one of them, and each reports `pid`.
 */
export function createApiMetrics() {
  const registry = new Registry();
  registry.setDefaultLabels({ service: 'api', pid: String(process.pid) });
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({ name: 'http_requests_total', help: 'HTTP requests by route and status', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['method', 'route'],
    buckets: [0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2],
    registers: [registry],
  });
  new Counter({
    name: 'db_queries_total',
    help: 'Statements sent to PostgreSQL (one round trip each)',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(dbQueryCount());
    },
  });
  const webhooks = new Counter({
    name: 'webhooks_total',
    help: 'Inbound provider webhooks by provider and outcome (received, verified, rejected, processed, duplicate, unresolved, ignored, failed)',
    labelNames: ['provider', 'outcome'],
    registers: [registry],
  });
  return { registry, requests, latency, webhooks };
}
export type ApiMetrics = ReturnType<typeof createApiMetrics>;

const started = new WeakMap<Request, number>();

/**
 * Who may scrape `GET /metrics`. With `METRICS_TOKEN` set, only a request bearing it
 * (`Authorization: Bearer …`, Prometheus's `authorization.credentials`); without it, anyone outside
 * production and nobody in production: the API port is the public one, and the figures (routes, volumes,
 * memory) are the operator's. A refused scrape gets the same 404 as a path no route takes.
 */
export interface MetricsAccess {
  readonly token?: string | undefined;
  readonly production: boolean;
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Whether a scrape's `Authorization` header is let through (constant time over digests). */
export function metricsScrapeAllowed(access: MetricsAccess, authorization: string | null): boolean {
  if (!access.token) return !access.production;
  const given = authorization?.startsWith('Bearer ') ? authorization.slice(7) : '';
  return timingSafeEqual(digest(given), digest(access.token));
}

/**
 * Times every request by its route pattern (never the raw path, so ids do not explode the label set);
 * a request that reached no route (unknown path, refused by the request guard) is `unmatched`. The
 * pattern comes from `routes` (route-patterns.ts), set by the app once every route is registered: a
 * hook reading Elysia's `route` would compile the route's path into every route's handler.
 */
export function metricsPlugin(metrics: ApiMetrics, routes: { current: RoutePatterns | null }, access: MetricsAccess) {
  return new Elysia({ name: 'metrics' })
    .onRequest(({ request }) => {
      started.set(request, performance.now());
    })
    .onAfterResponse({ as: 'global' }, ({ request, set }) => {
      const t0 = started.get(request);
      const route = refusedBeforeRouting(request) ? undefined : routes.current?.patternOfRequest(request);
      if (t0 === undefined || route === '/metrics') return;
      const labels = { method: request.method, route: route || 'unmatched' };
      metrics.requests.inc({ ...labels, status: String(set.status ?? 200) });
      metrics.latency.observe(labels, (performance.now() - t0) / 1000);
    })
    .get('/metrics', async ({ request, set }) => {
      if (!metricsScrapeAllowed(access, request.headers.get('authorization'))) {
        set.status = 404;
        return { message: 'Not Found' };
      }
      set.headers['content-type'] = metrics.registry.contentType;
      return metrics.registry.metrics();
    }, { detail: { hide: true } });
}
