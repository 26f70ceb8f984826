import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { createDatabase, type DatabaseHandle } from './database.ts';
import { uuidIn } from './sql-arrays.ts';

const URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ordering_test';
const ids = Array.from({ length: 5 }, (_, i) => `00000000-0000-4000-8000-00000000000${i}`);

describe('uuidIn', () => {
  let h: DatabaseHandle;
  const table = `uuid_in_probe_${process.pid}`;
  beforeAll(async () => {
    h = createDatabase(URL, { max: 2 });
    await sql`create table ${sql.table(table)} (id uuid primary key)`.execute(h.db);
    await sql`insert into ${sql.table(table)} select unnest(${ids}::uuid[])`.execute(h.db);
  });
  afterAll(async () => {
    await sql`drop table if exists ${sql.table(table)}`.execute(h.db);
    await h.close();
  });
  const select = (wanted: readonly string[]) => (h.db as any).selectFrom(table).select('id').where(uuidIn('id', wanted)).orderBy('id');

  test('selects exactly the ids given, none for an empty list', async () => {
    expect((await select([ids[3]!, ids[1]!, '00000000-0000-4000-8000-0000000000ff']).execute()).map((r: { id: string }) => r.id)).toEqual([ids[1], ids[3]]);
    expect(await select([]).execute()).toEqual([]);
  });

  test('is one parameter whatever the number of ids, so the statement text does not change with the batch', () => {
    const one = select([ids[0]!]).compile();
    const five = select(ids).compile();
    expect(one.sql).toBe(five.sql);
    expect(one.sql).toContain('"id" = any($1::uuid[])');
    expect(five.parameters).toEqual([ids]);
  });

  test('an id that is not a uuid is refused by PostgreSQL, not matched as text', async () => {
    await expect(select(["x' or true --"]).execute()).rejects.toThrow('invalid input syntax for type uuid');
  });
});
