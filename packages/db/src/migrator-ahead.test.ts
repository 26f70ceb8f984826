import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { createDatabase, type DatabaseHandle } from './database.ts';
import { migrateCentral, migrateTenant, unknownMigrations, TENANT_MIGRATIONS } from './migrator.ts';
import { newTenantSchemaName } from './tenancy.ts';

/**
 * A release older than its database (a rollback, or an old pod still running while a newer release's
 * migrate job ran) leaves the database as it is: before, Kysely refused the schema ("corrupted
 * migrations: previously executed migration ... is missing") and every older API and worker stopped at
 * start, and the older migrate job failed, so nothing of the release ran.
 */
const URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ordering_test';
const NEWER = '2099-01-01-000-from-a-newer-release';
let h: DatabaseHandle;
const schema = newTenantSchemaName('ahead');

beforeAll(async () => {
  h = createDatabase(URL, { max: 2 });
  await migrateCentral(h.db);
  await migrateTenant(h.db, schema);
});
afterAll(async () => {
  await sql`delete from public.kysely_migration where name = ${NEWER}`.execute(h.db);
  await sql`drop schema if exists ${sql.id(schema)} cascade`.execute(h.db);
  await h.db.deleteFrom('tenant_schema_versions').where('schema_name', '=', schema).execute();
  await h.close();
});

describe('a database migrated by a newer release', () => {
  test('the central schema is left as it is, the caller told what it does not know; migrating runs again once it knows them all', async () => {
    await sql`insert into public.kysely_migration (name, timestamp) values (${NEWER}, now()::text)`.execute(h.db);
    try {
      const told: [string, readonly string[]][] = [];
      await migrateCentral(h.db, (where, unknown) => void told.push([where, unknown]));
      expect(told).toEqual([['central schema', [NEWER]]]);
      // Without a listener too: no error.
      await migrateCentral(h.db);
    } finally {
      await sql`delete from public.kysely_migration where name = ${NEWER}`.execute(h.db);
    }
    expect(await unknownMigrations(h.db, 'public', {})).not.toEqual([]);
    const told: unknown[] = [];
    await migrateCentral(h.db, () => void told.push(1));
    expect(told).toEqual([]);
  });

  test('a tenant schema is left as it is, its recorded migration set too', async () => {
    const recorded = async () => (await h.db.selectFrom('tenant_schema_versions').select(['fingerprint', 'migrated_at']).where('schema_name', '=', schema).executeTakeFirstOrThrow());
    const before = await recorded();
    await sql`insert into ${sql.id(schema, 'kysely_migration')} (name, timestamp) values (${NEWER}, now()::text)`.execute(h.db);
    const told: [string, readonly string[]][] = [];
    await migrateTenant(h.db, schema, (where, unknown) => void told.push([where, unknown]));
    expect(told).toEqual([[`tenant schema ${schema}`, [NEWER]]]);
    expect(await recorded()).toEqual(before);
    expect(await unknownMigrations(h.db, schema, TENANT_MIGRATIONS)).toEqual([NEWER]);
    // A schema with no migration table yet (a new merchant's) knows nothing unknown.
    expect(await unknownMigrations(h.db, 'no_such_schema_here', TENANT_MIGRATIONS)).toEqual([]);
  });
});
