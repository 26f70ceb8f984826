import pg from 'pg';
import { resolveDatabase } from '@pos/db';

/**
 * A fresh database for one benchmark, named from BENCH_DATABASE (default `ordering_bench`) plus a
 * suffix, so checkouts benchmarking side by side on one server never share one.
 */
export async function freshBenchDatabase(root: string, suffix = ''): Promise<{ url: string; stop: () => Promise<void> }> {
  const base = await resolveDatabase(process.env, root, () => {});
  const name = `${process.env.BENCH_DATABASE ?? 'ordering_bench'}${suffix}`;
  if (!/^[a-z0-9_]+$/.test(name)) throw new Error(`BENCH_DATABASE must be lowercase letters, digits and underscores: ${name}`);
  const admin = new pg.Client({ connectionString: base.url });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  await admin.end();
  const u = new URL(base.url);
  u.pathname = `/${name}`;
  return { url: u.toString(), stop: base.stop };
}
