import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { createDatabase, type DatabaseHandle } from './database.ts';
import { withSessionLock } from './session-lock.ts';

const URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ordering_test';
let handle: DatabaseHandle;
beforeAll(() => {
  handle = createDatabase(URL, { max: 4, applicationName: 'session-lock-test' });
});
afterAll(() => handle.close());

describe('withSessionLock', () => {
  test('one holder at a time: a second caller is answered held false at once; after the first, the lock is free', async () => {
    const key = `test-lock:${crypto.randomUUID()}`;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = withSessionLock(handle.db, key, async () => {
      await gate;
      return 'first';
    });
    await Bun.sleep(50);
    expect(await withSessionLock(handle.db, key, async () => 'second')).toEqual({ held: false });
    release();
    expect(await first).toEqual({ held: true, value: 'first' });
    expect(await withSessionLock(handle.db, key, async () => 'third')).toEqual({ held: true, value: 'third' });
  });

  test('work that throws releases the lock', async () => {
    const key = `test-lock:${crypto.randomUUID()}`;
    await expect(withSessionLock(handle.db, key, async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    // Another session (a pool of its own) can take it: nothing leaked on the connection that held it.
    const other = createDatabase(URL, { max: 1, applicationName: 'session-lock-test-other' });
    try {
      const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(hashtextextended(${key}, 0)) as locked`.execute(other.db);
      expect(rows[0]!.locked).toBe(true);
      await sql`select pg_advisory_unlock(hashtextextended(${key}, 0))`.execute(other.db);
    } finally {
      await other.close();
    }
  });
});
