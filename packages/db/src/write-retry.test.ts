import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { createDatabase, type DatabaseHandle } from './database.ts';
import { isWriteConflict, retryDelayMs, withWriteRetry } from './write-retry.ts';

const URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ordering_test';

describe('write-conflict retry (spec 1 errors rule 6)', () => {
  test('backoff is 100 ms x 2^(n-1) plus 0-50 ms jitter', () => {
    expect(retryDelayMs(1, () => 0)).toBe(100);
    expect(retryDelayMs(2, () => 0)).toBe(200);
    expect(retryDelayMs(3, () => 0.9999)).toBe(450);
  });

  test('retries serialization failures up to the attempt limit, not other errors', async () => {
    const waits: number[] = [];
    let calls = 0;
    const conflict = Object.assign(new Error('could not serialize'), { code: '40001' });
    await expect(withWriteRetry(async () => { calls++; throw conflict; }, { sleep: async (ms) => void waits.push(ms), random: () => 0 })).rejects.toBe(conflict);
    expect(calls).toBe(3);
    expect(waits).toEqual([100, 200]);
    calls = 0;
    await expect(withWriteRetry(async () => { calls++; throw conflict; }, { attempts: 5, sleep: async () => {}, random: () => 0 })).rejects.toBe(conflict);
    expect(calls).toBe(5);
    calls = 0;
    await expect(withWriteRetry(async () => { calls++; throw new Error('other'); }, { sleep: async () => {} })).rejects.toThrow('other');
    expect(calls).toBe(1);
  });
});

describe('against PostgreSQL', () => {
  let h: DatabaseHandle;
  beforeAll(async () => {
    h = createDatabase(URL, { max: 4 });
    await sql`create table if not exists retry_probe (id int primary key, n int not null)`.execute(h.db);
    await sql`insert into retry_probe values (1, 0) on conflict (id) do update set n = 0`.execute(h.db);
  });
  afterAll(async () => {
    await sql`drop table if exists retry_probe`.execute(h.db);
    await h.close();
  });

  test('two serializable increments racing: one conflicts, the retry makes both land', async () => {
    const conflicts: unknown[] = [];
    const increment = () =>
      withWriteRetry(
        () =>
          h.db.transaction().setIsolationLevel('serializable').execute(async (tx) => {
            const { rows } = await sql<{ n: number }>`select n from retry_probe where id = 1`.execute(tx);
            await Bun.sleep(30);
            await sql`update retry_probe set n = ${rows[0]!.n + 1} where id = 1`.execute(tx);
          }),
        { onRetry: (_, e) => conflicts.push(e) },
      );
    await Promise.all([increment(), increment()]);
    const { rows } = await sql<{ n: number }>`select n from retry_probe where id = 1`.execute(h.db);
    expect(rows[0]!.n).toBe(2);
    expect(conflicts.length).toBeGreaterThanOrEqual(1);
    expect(conflicts.every(isWriteConflict)).toBe(true);
  });
});
