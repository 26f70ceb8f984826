import { afterAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import { TEST_ENV } from './testing/harness.ts';

/** API_PROCESSES=2: two processes answer on one port (reusePort), and both stop with the first. */
const root = join(import.meta.dir, '..', '..', '..');
const port = Number(process.env.PROCESSES_TEST_PORT ?? 3732);
let api: Subprocess | undefined;
afterAll(async () => {
  api?.kill('SIGTERM');
  await api?.exited;
});

const pidOf = async () => {
  // A new connection each time, so the kernel picks a listener each time.
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { connection: 'close' } })).text();
  return /pid="(\d+)"/.exec(text)?.[1];
};

describe('API_PROCESSES', () => {
  test('N processes share the port, and stopping the first stops them all', async () => {
    api = Bun.spawn(['bun', 'services/api/src/main.ts'], {
      cwd: root,
      env: { ...process.env, ...TEST_ENV, API_PORT: String(port), API_PROCESSES: '2', LOG_LEVEL: 'error' },
      stdout: 'ignore',
      stderr: 'inherit',
    });
    const pids = new Set<string>();
    const t0 = Date.now();
    while (pids.size < 2 && Date.now() - t0 < 20_000) {
      const pid = await pidOf().catch(() => undefined);
      if (pid) pids.add(pid);
      else await Bun.sleep(100);
    }
    expect(pids.size).toBe(2);
    expect(pids.has(String(api.pid))).toBe(true);
    api.kill('SIGTERM');
    await api.exited;
    for (const pid of pids) expect(() => process.kill(Number(pid), 0)).toThrow();
  }, 30_000);
});
