import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApi, type TestApi } from '../testing/harness.ts';

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
