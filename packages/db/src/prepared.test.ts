import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { createDatabase } from './database.ts';
import { PREPARED_PER_CONNECTION, TenantStatement } from './prepared.ts';
import { bindTenant } from './tenancy.ts';

const URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ordering_test';
const tag = crypto.randomUUID().slice(0, 8);
// More merchants than a connection keeps statements for.
const schemas = Array.from({ length: PREPARED_PER_CONNECTION + 6 }, (_, i) => `t_prep_${tag}_${i}`);
const h = createDatabase(URL, { max: 1, applicationName: 'prepared-limit-test' });
const count = new TenantStatement<{ n: number; s: string }>('prep_limit_count', `select count(*)::int as n, $1::text as s from $schema.things`);

beforeAll(async () => {
  for (const [i, s] of schemas.entries()) {
    await sql.raw(`create schema ${s}; create table ${s}.things (id int); insert into ${s}.things select generate_series(1, ${i + 1})`).execute(h.db);
  }
});

afterAll(async () => {
  for (const s of schemas) await sql.raw(`drop schema if exists ${s} cascade`).execute(h.db);
  await h.close();
});

const preparedHere = async () => (await sql<{ name: string }>`select name from pg_prepared_statements order by name`.execute(h.db)).rows.map((r) => r.name);

describe('named statements per pooled connection', () => {
  test('a connection serving more merchants than the limit keeps at most the limit, and an evicted statement runs again', async () => {
    // Twice round: the second pass finds every early schema's statement evicted and prepares it again.
    for (let pass = 0; pass < 2; pass++) {
      for (const [i, s] of schemas.entries()) {
        expect(await count.execute(bindTenant(h.db, s), [s])).toEqual([{ n: i + 1, s }]);
        const names = await preparedHere();
        expect(names.length).toBeLessThanOrEqual(PREPARED_PER_CONNECTION);
      }
    }
    const names = await preparedHere();
    expect(names.length).toBe(PREPARED_PER_CONNECTION);
    // The most recently used stays prepared; using one again keeps it from being the next evicted.
    expect(await count.execute(bindTenant(h.db, schemas[schemas.length - 1]!), ['last'])).toEqual([{ n: schemas.length, s: 'last' }]);
    expect((await preparedHere()).length).toBe(PREPARED_PER_CONNECTION);
  });

  test('a failed statement does not leave the connection believing a name is prepared', async () => {
    const broken = new TenantStatement<{ n: number }>('prep_limit_broken', `select count(*)::int as n from $schema.missing_table`);
    const failed = await broken.execute(bindTenant(h.db, schemas[0]!), []).then(
      () => null,
      (e: unknown) => e,
    );
    expect(failed).toBeInstanceOf(Error);
    // The next statements work (the failed client was dropped and replaced).
    expect(await count.execute(bindTenant(h.db, schemas[1]!), ['after'])).toEqual([{ n: 2, s: 'after' }]);
  });
});
