import { describe, expect, test } from 'bun:test';
import pg from 'pg';
import { sql } from 'kysely';
import { createDatabase } from './database.ts';

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
