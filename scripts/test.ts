/**
 * `bun run test`: the type check, unit and integration tests (`bun test`, real PostgreSQL and Redis),
 * then the end-to-end suite (Playwright, three real services). Ends with `N passed, N failed`.
 *
 * DATABASE_URL unset: the embedded PostgreSQL of DESIGN 4 serves a `ordering_test` database.
 * REDIS_URL unset: database 14 of the local Redis (TEST_REDIS_DB), emptied at the start.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { resolveDatabase } from '@pos/db';
import { createRedis, ensureRedis } from '@pos/kernel';

const root = join(import.meta.dir, '..');
const only = process.argv[2]; // optional: typecheck | unit | e2e

/** A fresh database per run: nothing left by an earlier run (or another branch's migrations) leaks in. */
async function freshDatabase(baseUrl: string, name: string): Promise<string> {
  const c = new pg.Client({ connectionString: baseUrl });
  await c.connect();
  await c.query(`drop database if exists ${name} with (force)`);
  await c.query(`create database ${name}`);
  await c.end();
  const u = new URL(baseUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * Without REDIS_URL: a database of the local Redis of its own (TEST_REDIS_DB, default 14), emptied
 * first. Throttle counters live for up to an hour: counts left in the shared database by a benchmark or
 * a development server (failed sign-ins from 127.0.0.1, for one) refused the tests' own sign-ins.
 */
async function testRedis(given: string | undefined): Promise<string> {
  if (given) return given;
  const url = `${await ensureRedis(undefined)}/${process.env.TEST_REDIS_DB ?? '14'}`;
  const r = createRedis(url, 'test-runner');
  await r.flushdb();
  r.disconnect();
  return url;
}

function run(cmd: string[], env: Record<string, string | undefined>): { code: number; out: string } {
  const p = Bun.spawnSync(cmd, { cwd: root, env: env as Record<string, string>, stdout: 'pipe', stderr: 'pipe' });
  const out = p.stdout.toString() + p.stderr.toString();
  process.stdout.write(out);
  return { code: p.exitCode ?? 1, out };
}

const base = await resolveDatabase(process.env, root, (m) => console.error(`[test] ${m}`));
const redisUrl = await testRedis(process.env.REDIS_URL);
// The unit part gets a fresh database; the type check needs none and the e2e stack makes its own.
// TEST_DATABASE lets two checkouts on one machine test side by side without sharing migrations.
const testDatabase = process.env.TEST_DATABASE ?? 'ordering_test';
const DATABASE_URL = !only || only === 'unit' ? await freshDatabase(base.url, testDatabase) : base.url;
const env = { ...process.env, DATABASE_URL, REDIS_URL: redisUrl, APP_ENV: 'test' };
let passed = 0;
let failed = 0;
/** Failing test names, repeated just above the last line: CI keeps only the tail of a long output. */
const failures: string[] = [];

if (!only || only === 'typecheck') {
  console.log('\n== type check ==');
  const r = run(['bunx', 'tsc', '-p', 'tsconfig.json', '--noEmit'], env);
  r.code === 0 ? passed++ : failed++;
  console.log(r.code === 0 ? 'type check: ok' : 'type check: FAILED');
}

if (!only || only === 'unit') {
  console.log('\n== unit and integration tests (bun test) ==');
  // The 30 s limit on the command line: bunfig's `timeout` and the preload's `setDefaultTimeout` only
  // reach the first test file of a multi-file run in Bun 1.4 (the others got 5 s, and timed out under load).
  const r = run(['bun', 'test', '--timeout', '30000', 'packages', 'services', 'infra', 'scripts'], env);
  const p = /^\s*(\d+) pass\s*$/m.exec(r.out);
  const f = /^\s*(\d+) fail\s*$/m.exec(r.out);
  failures.push(...new Set(r.out.split('\n').filter((l) => l.startsWith('(fail)'))));
  passed += p ? Number(p[1]) : 0;
  failed += f ? Number(f[1]) : 0;
  if (r.code !== 0 && !f) {
    failed++;
    failures.push(`bun test exited with code ${r.code} without a summary`);
  }
}

if (!only || only === 'e2e') {
  console.log('\n== end-to-end (Playwright) ==');
  const results = join(root, 'e2e', '.run', 'results.json');
  rmSync(results, { force: true });
  // The e2e stack makes its own fresh database next to the test one.
  const r = run(['bunx', 'playwright', 'test', '-c', 'e2e/playwright.config.ts'], { ...env, DATABASE_URL: base.url === process.env.DATABASE_URL ? base.url : DATABASE_URL });
  if (existsSync(results)) {
    const stats = JSON.parse(readFileSync(results, 'utf8')).stats as { expected: number; unexpected: number; flaky: number };
    passed += stats.expected + stats.flaky;
    failed += stats.unexpected;
    if (r.code !== 0 && stats.unexpected === 0) failed++;
  } else {
    failed++;
  }
}

await base.stop();
if (failures.length > 0) console.log(`\nfailed:\n${failures.join('\n')}`);
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
