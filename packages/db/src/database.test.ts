import { describe, expect, test } from 'bun:test';
import pg from 'pg';
import { sql } from 'kysely';
import { createDatabase, poolOf } from './database.ts';

const URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ordering_test';

describe('the pool survives a server that drops a checked-out connection', () => {
  test('a backend terminated between two statements of a transaction: the transaction fails, the process and the pool go on', async () => {
    const h = createDatabase(URL, { max: 2, applicationName: 'pool-drop-test' });
    const admin = new pg.Client({ connectionString: URL });
    await admin.connect();
    const unheard: unknown[] = [];
    const onUncaught = (e: unknown) => void unheard.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      const failed = await h.db
        .transaction()
        .execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          // The client is checked out and idle: the server's error arrives with no query to fail.
          await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
          await Bun.sleep(300);
          await sql`select 1`.execute(trx);
        })
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(failed).toBeInstanceOf(Error);
      expect(unheard).toEqual([]);
      // The broken client was dropped: the next statements get a working connection.
      for (let i = 0; i < 3; i++) expect((await sql<{ n: number }>`select 1 as n`.execute(h.db)).rows).toEqual([{ n: 1 }]);
    } finally {
      process.off('uncaughtException', onUncaught);
      await admin.end();
      await h.close();
    }
  });
});

describe('pooled connections are replaced after their lifetime', () => {
  test('a connection older than maxLifetimeSeconds is not used again: the next statement runs on a new backend', async () => {
    const h = createDatabase(URL, { max: 1, applicationName: 'pool-lifetime-test', maxLifetimeSeconds: 1 });
    try {
      const pid = async () => (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(h.db)).rows[0]!.pid;
      const first = await pid();
      expect(await pid()).toBe(first);
      await Bun.sleep(1500);
      expect(await pid()).not.toBe(first);
    } finally {
      await h.close();
    }
  });
});

describe('pooled statements are planned for their values', () => {
  test('an unnamed parameterised query gets a plan for the value it was sent (not a generic one)', async () => {
    const h = createDatabase(URL, { max: 1, applicationName: 'pool-plan-test' });
    const schema = `plan_test_${crypto.randomUUID().slice(0, 8)}`;
    try {
      await sql`create schema ${sql.id(schema)}`.execute(h.db);
      await sql`create table ${sql.id(schema, 't')} (a int, b int)`.execute(h.db);
      // Skewed: one value in 100,000 is 2. For a = 2 an index answers; a plan blind to the value scans.
      await sql`insert into ${sql.id(schema, 't')} select case when g % 100000 = 0 then 2 else 1 end, g from generate_series(1, 200000) g`.execute(h.db);
      await sql`create index on ${sql.id(schema, 't')} (a)`.execute(h.db);
      await sql`analyze ${sql.id(schema, 't')}`.execute(h.db);
      const plans: string[] = [];
      const pool = poolOf(h.db)!;
      const client = await pool.connect();
      try {
        client.on('notice', (n: { message?: string }) => void plans.push(n.message ?? ''));
        await client.query(`load 'auto_explain'`);
        await client.query(`set auto_explain.log_min_duration = 0`);
        await client.query(`set client_min_messages = log`);
        // Six runs: PostgreSQL would switch a named statement to a generic plan after five.
        for (let i = 0; i < 6; i++) await client.query(`select sum(b) from ${schema}.t where a = $1`, [2]);
      } finally {
        client.release();
      }
      const ours = plans.filter((p) => p.includes(`${schema}.t`) || p.includes(' on t '));
      expect(ours.length).toBe(6);
      // Before: plan_cache_mode=force_generic_plan on every pooled connection planned `a = $1` for every value.
      for (const p of ours) {
        const plan = p.split('\n').filter((l) => !l.startsWith('Query Text:')).join('\n');
        expect(plan).toContain('(a = 2)');
        expect(plan).not.toContain('$1');
      }
    } finally {
      await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(h.db);
      await h.close();
    }
  });
});
