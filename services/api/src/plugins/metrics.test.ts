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
});
