import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, TEST_ENV, type TestApi } from './testing/harness.ts';

/**
 * Two API processes, each caching authentication for a minute: a logout or pin-logout answered by one
 * must make the other refuse the same credential within one second (Redis pub/sub invalidation).
 */
const root = join(import.meta.dir, '..', '..', '..');
const base = Number(process.env.AUTH_TEST_PORT ?? 3730);
const ports = [base, base + 1] as const;
let api: TestApi;
let m: DemoSeedResult;
const procs: Subprocess[] = [];

async function startApi(port: number): Promise<Subprocess> {
  const p = Bun.spawn(['bun', 'services/api/src/main.ts'], {
    cwd: root,
    env: { ...process.env, ...TEST_ENV, AUTH_CACHE_TTL_MS: '60000', API_PORT: String(port), LOG_LEVEL: 'error' },
    stdout: 'ignore',
    stderr: 'inherit',
  });
  for (let i = 0; ; i++) {
    if (await fetch(`http://127.0.0.1:${port}/version`).then((r) => r.ok, () => false)) return p;
    if (i > 150) throw new Error(`API on ${port} did not start`);
    await Bun.sleep(100);
  }
}

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('twoproc');
  for (const port of ports) procs.push(await startApi(port));
}, 60_000);
afterAll(async () => {
  for (const p of procs) p.kill('SIGTERM');
  await Promise.all(procs.map((p) => p.exited));
  await api.close();
});

const call = (port: number, method: string, path: string, headers: Record<string, string>) =>
  fetch(`http://127.0.0.1:${port}${path}`, { method, headers: { 'x-client-api-key': TEST_ENV.DEVICE_API_KEY, ...headers } });

/** Milliseconds until `port` answers 401 to the request, polling; fails after 3 s. */
async function msUntil401(port: number, path: string, headers: Record<string, string>): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    if ((await call(port, 'GET', path, headers)).status === 401) return performance.now() - t0;
    if (performance.now() - t0 > 3000) return Infinity;
    await Bun.sleep(20);
  }
}

describe('auth invalidation across API processes', () => {
  test('a device logged out on one process is refused by the other within one second', async () => {
    const token = await api.deviceToken(m, 'pos');
    const auth = { authorization: `Bearer ${token}` };
    for (const port of ports) expect((await call(port, 'GET', '/api/device-auth/user', auth)).status).toBe(200);
    // Served from the second process's cache from here on.
    expect((await call(ports[1], 'GET', '/api/device-auth/user', auth)).status).toBe(200);
    expect((await call(ports[0], 'POST', '/api/device-auth/logout', auth)).status).toBe(200);
    expect(await msUntil401(ports[1], '/api/device-auth/user', auth)).toBeLessThan(1000);
  });

  test('a staff session ended on one process is refused by the other within one second', async () => {
    const token = await api.deviceToken(m, 'pos');
    const staff = await api.staffLogin(m, 'manager', token);
    const headers = { authorization: `Bearer ${token}`, 'x-pos-staff-token': staff };
    for (const port of ports) expect((await call(port, 'GET', '/api/pos/orders?state=open', headers)).status).toBe(200);
    expect((await call(ports[0], 'POST', '/api/pos/staff/pin-logout', headers)).status).toBe(200);
    expect(await msUntil401(ports[1], '/api/pos/orders?state=open', headers)).toBeLessThan(1000);
  });
});
