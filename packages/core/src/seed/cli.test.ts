import { afterAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { createDatabase } from '@pos/db';
import { BUN, bareEnv } from '@pos/kernel/test-process';
import { dropMerchant } from '../merchants/create-merchant.ts';

/** `bun run seed:demo` as a process: one JSON object as the last stdout line, exit 1 on an existing slug. */
const root = join(import.meta.dir, '..', '..', '..', '..');
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ordering_test';
const env = { ...bareEnv(), DATABASE_URL, DEVICE_API_KEY: 'cli-device-api-key-0123', PIN_PEPPER: 'cli-pin-pepper-0123456789' };
const slug = `cli-${crypto.randomUUID().slice(0, 8)}`;
const run = (...args: string[]) => Bun.spawnSync([...BUN, 'run', 'seed:demo', '--', '--slug', slug, ...args], { cwd: root, env });

afterAll(async () => {
  const h = createDatabase(DATABASE_URL, { max: 1 });
  const m = await h.db.selectFrom('merchants').select(['id', 'tenant_database']).where('slug', '=', slug).executeTakeFirst();
  if (m) await dropMerchant(h.db, m);
  await h.close();
});

describe('bun run seed:demo', () => {
  test('prints exactly one JSON object as the last line; logs stay on stderr', () => {
    const r = run();
    expect(r.exitCode).toBe(0);
    const lines = r.stdout.toString().trim().split('\n');
    const out = JSON.parse(lines[lines.length - 1]!);
    expect(out.merchant.slug).toBe(slug);
    expect(out.api_key).toBe(env.DEVICE_API_KEY);
    expect(lines.filter((l) => l.startsWith('{')).length).toBe(1);
  });

  test('the same slug again exits 1; --reset recreates it', () => {
    const again = run();
    expect(again.exitCode).toBe(1);
    expect(again.stderr.toString()).toContain('already exists');
    const reset = run('--reset');
    expect(reset.exitCode).toBe(0);
    expect(JSON.parse(reset.stdout.toString().trim().split('\n').pop()!).merchant.slug).toBe(slug);
  });
});
