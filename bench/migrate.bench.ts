/**
 * Tenant migrations against the number of merchants: the time one demo seed takes (central migrations
 * plus the new merchant's own schema) with 10 and with 200 merchants in the database (goal: flat), and
 * `bun run migrate` with 200 merchants all current (goal: under 2 s), as a process and in-process.
 *
 * Env: BENCH_MERCHANTS ("10,200"), BENCH_DATABASE (database name prefix).
 */
import { join } from 'node:path';
import { createDatabase, migrateAll, migrateCentral } from '@pos/db';
import { createMerchant } from '@pos/core/merchants/create-merchant';
import { freshBenchDatabase } from './bench-database.ts';
import { fmt } from './stats.ts';

const root = join(import.meta.dir, '..');
const SEED_ENV = { DEVICE_API_KEY: 'bench-device-api-key-0123', PIN_PEPPER: 'bench-pin-pepper-0123456789', LOG_LEVEL: 'error' };
const COUNTS = (process.env.BENCH_MERCHANTS ?? '10,200').split(',').map(Number).sort((a, b) => a - b);

export async function runMigrateBench(): Promise<void> {
  const { url, stop } = await freshBenchDatabase(root, '_migrate');
  const h = createDatabase(url, { max: 6, applicationName: 'bench-migrate' });
  await migrateCentral(h.db);
  let merchants = 0;
  const lines: string[] = [];
  for (const target of COUNTS) {
    // Fill up to target - 1 merchants (4 at a time), then time one seed that makes it `target`.
    const fill = Array.from({ length: Math.max(0, target - 1 - merchants) }, (_, i) => merchants + i);
    for (let i = 0; i < fill.length; i += 4) {
      await Promise.all(fill.slice(i, i + 4).map((k) => createMerchant(h.db, { slug: `fill-${k}`, name: `Fill ${k}` })));
    }
    merchants += fill.length;
    // The real command, as a process: what a deploy or a developer waits for.
    const t0 = performance.now();
    const seed = Bun.spawnSync(['bun', 'run', 'seed:demo', '--', '--slug', `seed-${target}`], { cwd: root, env: { ...process.env, ...SEED_ENV, DATABASE_URL: url } });
    const wall = performance.now() - t0;
    if (seed.exitCode !== 0) throw new Error(`seed:demo failed: ${seed.stderr.toString()}`);
    merchants++;
    const usage = seed.resourceUsage;
    const cpuMs = usage ? (Number(usage.cpuTime.user) + Number(usage.cpuTime.system)) / 1000 : NaN;
    lines.push(`  \`bun run seed:demo\` with ${merchants} merchants: ${fmt(wall)} ms wall, ${fmt(cpuMs)} ms CPU`);
  }
  const m0 = performance.now();
  const r = await migrateAll(h.db);
  const inProcess = performance.now() - m0;
  const c0 = performance.now();
  const cli = Bun.spawnSync(['bun', 'run', 'migrate'], { cwd: root, env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'error' } });
  const cliMs = performance.now() - c0;
  if (cli.exitCode !== 0) throw new Error(`bun run migrate failed: ${cli.stderr.toString()}`);
  await h.close();
  await stop();
  console.log('tenant migrations:');
  for (const l of lines) console.log(l);
  console.log(`  migrate with ${r.tenants} merchants, ${r.migrated} to do: ${fmt(inProcess)} ms in-process, ${fmt(cliMs)} ms as \`bun run migrate\` (process start included; goal < 2 s)`);
}
