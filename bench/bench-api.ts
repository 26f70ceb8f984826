import type { Subprocess } from 'bun';

/** Secrets of every benchmark's API process (fixed: benchmarks mint their own tokens with them). */
export const BENCH_SECRETS = {
  JWT_SECRET: 'bench-jwt-secret-0123456789abcdef0123456789',
  DEVICE_API_KEY: 'bench-device-api-key-0123',
  PIN_PEPPER: 'bench-pin-pepper-0123456789',
  FISCAL_MASTER_KEY: 'bench-fiscal-master-key-0123456789abcdef',
} as const;

/**
 * The API as its own process (client and server never share an event loop), on `port` against
 * `databaseUrl`, resolved once it answers its readiness check. BENCH_API_FLAGS adds bun flags
 * (e.g. `--cpu-prof`).
 */
export async function startBenchApi(root: string, opts: { port: number; databaseUrl: string; env?: Record<string, string> }): Promise<Subprocess> {
  const api = Bun.spawn(['bun', ...(process.env.BENCH_API_FLAGS ?? '').split(' ').filter(Boolean), 'services/api/src/main.ts'], {
    cwd: root,
    env: { ...process.env, ...BENCH_SECRETS, APP_ENV: 'test', DATABASE_URL: opts.databaseUrl, API_PORT: String(opts.port), LOG_LEVEL: 'error', ...opts.env },
    stdout: 'ignore',
    stderr: 'inherit',
  });
  for (let i = 0; ; i++) {
    if (await fetch(`http://127.0.0.1:${opts.port}/api/health/readiness`).then((r) => r.ok, () => false)) return api;
    if (i > 100 || api.exitCode !== null) {
      api.kill();
      throw new Error('API did not start');
    }
    await Bun.sleep(100);
  }
}
