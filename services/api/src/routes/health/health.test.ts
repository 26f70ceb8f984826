import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

let api: TestApi;
let down: TestApi;
beforeAll(async () => {
  api = await createTestApi({ healthTtlMs: 60_000 });
  // A real connection to a port where nothing listens: Redis is down for this instance.
  down = await createTestApi({ env: { REDIS_URL: 'redis://127.0.0.1:1' }, healthTtlMs: 0 });
});
afterAll(async () => {
  await api.close();
  await down.close();
});

describe('health routes', () => {
  test('all five answer 200 with real checks', async () => {
    expect((await api.call('GET', '/api/health')).body).toEqual({ status: 'ok' });
    expect((await api.call('GET', '/api/health/readiness')).body).toEqual({ status: 'ready' });
    const d = await api.call('GET', '/api/health/detailed');
    expect(d.status).toBe(200);
    expect(d.body.checks.database.status).toBe('ok');
    expect(d.body.checks.redis.status).toBe('ok');
    const s = await api.call('GET', '/api/health/status');
    expect(s.status).toBe(200);
    expect(s.body.status).toBe('ok');
    expect(s.body.environment).toBe('test');
  });

  test('cached routes reuse the report; /fresh bypasses the cache', async () => {
    const a = await api.call('GET', '/api/health/detailed');
    const b = await api.call('GET', '/api/health/detailed');
    expect(b.body.checked_at).toBe(a.body.checked_at);
    await Bun.sleep(5);
    const f = await api.call('GET', '/api/health/fresh');
    expect(f.status).toBe(200);
    expect(f.body.checked_at).not.toBe(a.body.checked_at);
  });

  test('a failed dependency answers 503 and /detailed names it', async () => {
    expect(await down.call('GET', '/api/health')).toMatchObject({ status: 503, body: { status: 'fail', message: 'Service Unavailable' } });
    expect((await down.call('GET', '/api/health/readiness')).status).toBe(503);
    const d = await down.call('GET', '/api/health/detailed');
    expect(d.status).toBe(503);
    expect(d.body.message).toBe('Unhealthy: redis');
    expect(d.body.checks.database.status).toBe('ok');
    expect(d.body.checks.redis.status).toBe('fail');
    expect(JSON.stringify(d.body)).not.toContain('127.0.0.1');
    expect((await down.call('GET', '/api/health/fresh')).status).toBe(503);
    expect((await down.call('GET', '/api/health/status')).status).toBe(503);
  });
});
