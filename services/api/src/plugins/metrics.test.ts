import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApi, type TestApi } from '../testing/harness.ts';
import { createApiMetrics, metricsPlugin, metricsScrapeAllowed } from './metrics.ts';

let api: TestApi;
beforeAll(async () => (api = await createTestApi()));
afterAll(() => api.close());

describe('GET /metrics', () => {
  test('counts requests per route pattern, times them and counts database statements', async () => {
    await api.call('GET', '/api/health');
    await api.call('GET', '/api/health');
    // The request is recorded after its response went out, so the scrape may have to look again.
    let text = '';
    let line: string | undefined;
    for (let i = 0; i < 50 && !line; i++) {
      const r = await api.app.handle(new Request('http://localhost/metrics'));
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toContain('text/plain');
      text = await r.text();
      line = text.split('\n').find((l) => l.startsWith('http_requests_total{') && l.includes('route="/api/health"') && !l.endsWith(' 1'));
      if (!line) await Bun.sleep(10);
    }
    expect(line).toBeDefined();
    expect(Number(line!.split(' ').pop())).toBeGreaterThanOrEqual(2);
    expect(text).toContain('http_request_duration_seconds_bucket{');
    expect(text).toMatch(/db_queries_total\{[^}]*\} [1-9]/);
    expect(text).toContain('process_resident_memory_bytes');
  });

  test('a request is labelled with the pattern of the route it reached; one the request guard refused or no route took is unmatched', async () => {
    const id = crypto.randomUUID();
    expect((await api.call('GET', `/api/back-office/items/${id}`)).status).toBe(401);
    expect((await api.call('POST', '/api/login', { rawBody: '{"a":' })).status).toBe(400);
    expect((await api.call('GET', '/api/no-such-route')).status).toBe(404);
    const lines = async () => (await (await api.app.handle(new Request('http://localhost/metrics'))).text()).split('\n').filter((l) => l.startsWith('http_requests_total{'));
    let found: string[] = [];
    for (let i = 0; i < 50; i++) {
      found = await lines();
      if (found.some((l) => l.includes('route="/api/back-office/items/:id"')) && found.some((l) => l.includes('method="POST",route="unmatched"'))) break;
      await Bun.sleep(10);
    }
    expect(found.find((l) => l.includes('route="/api/back-office/items/:id"'))).toContain('method="GET",route="/api/back-office/items/:id",status="401"');
    expect(found.some((l) => l.includes('method="POST",route="unmatched"'))).toBe(true);
    expect(found.some((l) => l.includes('method="GET",route="unmatched"'))).toBe(true);
    expect(found.filter((l) => l.includes(id) || l.includes('/api/login') || l.includes('no-such-route'))).toEqual([]);
  });
});

describe('who may scrape GET /metrics', () => {
  const scrape = (access: { token?: string; production: boolean }, authorization?: string) =>
    metricsPlugin(createApiMetrics(), { current: null }, access).handle(
      new Request('http://localhost/metrics', authorization ? { headers: { authorization } } : {}),
    );

  test('in production without METRICS_TOKEN nobody may: the same 404 as an unknown path', async () => {
    const r = await scrape({ production: true });
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ message: 'Not Found' });
    expect((await scrape({ production: true }, 'Bearer anything-at-all-0123')).status).toBe(404);
  });

  test('with METRICS_TOKEN only its bearer may, in every environment', async () => {
    const token = 'metrics-token-0123456789';
    for (const production of [true, false]) {
      expect((await scrape({ token, production })).status).toBe(404);
      expect((await scrape({ token, production }, `Bearer ${token}x`)).status).toBe(404);
      expect((await scrape({ token, production }, token)).status).toBe(404);
      const ok = await scrape({ token, production }, `Bearer ${token}`);
      expect(ok.status).toBe(200);
      expect(await ok.text()).toContain('process_resident_memory_bytes');
    }
    expect(metricsScrapeAllowed({ token, production: false }, `Bearer ${token.slice(0, -1)}`)).toBe(false);
  });

  test('outside production without METRICS_TOKEN it is open (development and tests scrape it)', async () => {
    expect((await scrape({ production: false })).status).toBe(200);
  });

  test('the API reads METRICS_TOKEN from its environment', async () => {
    const token = 'metrics-token-from-env-0123';
    const guarded = await createTestApi({ env: { METRICS_TOKEN: token } });
    try {
      expect((await guarded.app.handle(new Request('http://localhost/metrics'))).status).toBe(404);
      expect((await guarded.app.handle(new Request('http://localhost/metrics', { headers: { authorization: `Bearer ${token}` } }))).status).toBe(200);
    } finally {
      await guarded.close();
    }
  });
});
