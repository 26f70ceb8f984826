import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql, type Kysely } from 'kysely';
import { createDatabase, dbQueryCount, type DatabaseHandle } from './database.ts';
import { migrateAll, migrateCentral, migrateTenant, pendingTenantSchemas, TENANT_MIGRATIONS, TENANT_MIGRATIONS_FINGERPRINT } from './migrator.ts';
import { bindTenant, isTenantSchemaName, newTenantSchemaName } from './tenancy.ts';
import { schemaOf, TenantStatement } from './prepared.ts';
import * as migration105 from './migrations/tenant/2026-11-27-105-daily-stats-claim-in-trace.ts';

const URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ordering_test';
let h: DatabaseHandle;
const a = newTenantSchemaName('alpha');
const b = newTenantSchemaName('beta');

beforeAll(async () => {
  h = createDatabase(URL, { max: 4 });
  await migrateCentral(h.db);
  await migrateTenant(h.db, a);
  await migrateTenant(h.db, b);
});
afterAll(async () => {
  for (const s of [a, b]) await sql`drop schema if exists ${sql.id(s)} cascade`.execute(h.db);
  await h.close();
});

/**
 * Columns, indexes and constraints of the central schema and every merchant's schema, and each
 * schema's migration table (names and timestamps: a re-applied migration would change its timestamp).
 */
async function schemaSnapshot() {
  const merchants = await h.db.selectFrom('merchants').select('tenant_database').orderBy('tenant_database').execute();
  const schemas = ['public', ...merchants.map((m) => m.tenant_database)];
  const columns = await sql<Record<string, unknown>>`select table_schema, table_name, column_name, data_type, is_nullable, column_default from information_schema.columns where table_schema = any(${schemas}) order by 1, 2, 3`.execute(h.db);
  const indexes = await sql<Record<string, unknown>>`select schemaname, tablename, indexname, indexdef from pg_indexes where schemaname = any(${schemas}) order by 1, 2, 3`.execute(h.db);
  const constraints = await sql<Record<string, unknown>>`select n.nspname, c.conname, pg_get_constraintdef(c.oid) as def from pg_constraint c join pg_namespace n on n.oid = c.connamespace where n.nspname = any(${schemas}) order by 1, 2, 3`.execute(h.db);
  const migrations: Record<string, unknown[]> = {};
  for (const schema of schemas) {
    migrations[schema] = (await sql`select name, timestamp from ${sql.id(schema)}.kysely_migration order by name`.execute(h.db)).rows;
  }
  expect(columns.rows.length).toBeGreaterThan(0);
  return { columns: columns.rows, indexes: indexes.rows, constraints: constraints.rows, migrations };
}

describe('tenancy', () => {
  test('schema names are validated before they reach SQL', () => {
    expect(isTenantSchemaName(a)).toBe(true);
    expect(isTenantSchemaName('public')).toBe(false);
    expect(isTenantSchemaName('t_x; drop table merchants')).toBe(false);
    expect(() => bindTenant(h.db, 'public')).toThrow('Invalid tenant schema name');
  });

  test('each tenant schema holds its own tables and migration history', async () => {
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from information_schema.tables where table_schema = ${a} and table_name = 'locations'`.execute(h.db);
    expect(rows[0]!.n).toBe(1);
    const applied = await sql<{ name: string }>`select name from ${sql.id(a)}.kysely_migration order by name`.execute(h.db);
    expect(applied.rows.map((r) => r.name)).toEqual(Object.keys(TENANT_MIGRATIONS));
  });

  test('a tenant-bound instance sees only its own rows', async () => {
    const ta = bindTenant(h.db, a);
    const tb = bindTenant(h.db, b);
    await ta.insertInto('locations').values({ id: crypto.randomUUID(), name: 'A', timezone: 'Europe/Brussels', country: 'BE', pos_tenders: '{}' }).execute();
    expect((await ta.selectFrom('locations').select('name').execute()).map((r) => r.name)).toEqual(['A']);
    expect(await tb.selectFrom('locations').select('name').execute()).toEqual([]);
  });

  test('migrateAll is idempotent: a second run changes neither the schema nor the migration tables', async () => {
    // Settled first: schemas other test files left behind (a downgrade test, a merchant created with an
    // older set) are migrated by the first run only, so its report would differ from the second's.
    await migrateAll(h.db);
    const first = await migrateAll(h.db);
    const before = await schemaSnapshot();
    expect(before.migrations.public).toBeDefined();
    expect(Object.keys(before.migrations).length).toBe(first.tenants + 1);
    const second = await migrateAll(h.db);
    expect(second).toEqual(first);
    expect(await schemaSnapshot()).toEqual(before);
  });

  test('migrateTenant records the migration set it brought the schema to', async () => {
    const row = await h.db.selectFrom('tenant_schema_versions').selectAll().where('schema_name', '=', a).executeTakeFirstOrThrow();
    expect(row.fingerprint).toBe(TENANT_MIGRATIONS_FINGERPRINT);
    expect(row.latest).toBe(Object.keys(TENANT_MIGRATIONS).sort().at(-1)!);
  });

  test('migrateAll migrates only the schemas behind, side by side, and reports progress', async () => {
    const fresh = [newTenantSchemaName('gamma'), newTenantSchemaName('delta'), newTenantSchemaName('epsilon')];
    const owned = [...fresh, a, b];
    const ids = owned.map(() => crypto.randomUUID());
    try {
      await h.db.insertInto('merchants').values(owned.map((s, i) => ({ id: ids[i]!, slug: `mig-${s.slice(-8)}`, name: s, tenant_database: s }))).execute();
      // One existing schema falls behind: its recorded set is an older one.
      await h.db.updateTable('tenant_schema_versions').set({ fingerprint: 'older' }).where('schema_name', '=', b).execute();
      const before = await pendingTenantSchemas(h.db);
      expect(before).toEqual(expect.arrayContaining([...fresh, b]));
      expect(before).not.toContain(a);

      const progress: string[] = [];
      const r = await migrateAll(h.db, { concurrency: 3, onProgress: (p) => progress.push(`${p.done}/${p.total}`) });
      expect(r.migrated).toBe(before.length);
      expect(progress.at(-1)).toBe(`${before.length}/${before.length}`);
      for (const s of fresh) {
        const applied = await sql<{ name: string }>`select name from ${sql.id(s)}.kysely_migration order by name`.execute(h.db);
        expect(applied.rows.map((x) => x.name)).toEqual(Object.keys(TENANT_MIGRATIONS));
      }
      expect(await pendingTenantSchemas(h.db)).toEqual([]);
      expect((await migrateAll(h.db)).migrated).toBe(0);
    } finally {
      await h.db.deleteFrom('merchants').where('id', 'in', ids).execute();
      await h.db.deleteFrom('tenant_schema_versions').where('schema_name', 'in', fresh).execute();
      for (const s of fresh) await sql`drop schema if exists ${sql.id(s)} cascade`.execute(h.db);
    }
  });
});

/** Records a step (the trace has no foreign key, so any id will do); answers what was written. */
const record = new TenantStatement<{ transaction_id: string; step: string }>(
  'prepared_test_record',
  `insert into $schema.transaction_steps (transaction_id, step, outcome) values ($1, $2, 'ok') returning transaction_id::text, step`,
);
const stepsIn = async (schema: string, id: string) =>
  (await sql<{ step: string }>`select step from ${sql.id(schema)}.transaction_steps where transaction_id = ${id} order by seq`.execute(h.db)).rows.map((r) => r.step);

describe('TenantStatement.execute', () => {
  test('inside a transaction: on its connection (a rollback takes the write back); on a bound instance: on its pool; each in its own schema', async () => {
    for (const [schema, other] of [
      [a, b],
      [b, a],
    ] as const) {
      const tdb = bindTenant(h.db, schema);
      const id = crypto.randomUUID();
      const q0 = dbQueryCount();
      await tdb
        .transaction()
        .execute(async (tx) => {
          expect(schemaOf(tx)).toBe(schema);
          expect(await record.execute(tx, [id, 'inside'])).toEqual([{ transaction_id: id, step: 'inside' }]);
          // Seen inside the transaction, not outside it.
          expect((await tx.selectFrom('transaction_steps').select('step').where('transaction_id', '=', id).execute()).map((r) => r.step)).toEqual(['inside']);
          expect(await stepsIn(schema, id)).toEqual([]);
          throw new Error('roll back');
        })
        .catch((e: Error) => expect(e.message).toBe('roll back'));
      // begin, the statement, the read, the read outside (another client), rollback.
      expect(dbQueryCount() - q0).toBe(5);
      expect(await stepsIn(schema, id)).toEqual([]);
      expect(await record.execute(tdb, [id, 'pooled'])).toEqual([{ transaction_id: id, step: 'pooled' }]);
      expect(await stepsIn(schema, id)).toEqual(['pooled']);
      expect(await stepsIn(other, id)).toEqual([]);
    }
  });

  test('schemaOf refuses an instance that is not bound to a tenant schema', () => {
    expect(() => schemaOf(h.db)).toThrow('not a tenant-bound instance');
    expect(schemaOf(bindTenant(h.db, b))).toBe(b);
  });
});

describe('migration 2026-11-27-105 (the daily stats claim is the trace step)', () => {
  test('down rebuilds daily_stats_counted from the steps; up gives a counted transaction without its step one and drops the table', async () => {
    const tdb = bindTenant(h.db, a) as unknown as Kysely<any>;
    const [stepped, bare] = [crypto.randomUUID(), crypto.randomUUID()];
    await tdb.insertInto('transaction_steps').values({ transaction_id: stepped, step: 'daily_stats', outcome: 'ok', detail: '2026-11-27' }).execute();
    await migration105.down(tdb);
    expect((await tdb.selectFrom('daily_stats_counted').select('transaction_id').where('transaction_id', 'in', [stepped, bare]).execute()).map((r) => r.transaction_id)).toEqual([stepped]);
    await tdb.insertInto('daily_stats_counted').values({ transaction_id: bare }).execute();
    await migration105.up(tdb);
    const steps = await tdb.selectFrom('transaction_steps').select(['transaction_id', 'step', 'outcome', 'detail']).where('transaction_id', 'in', [stepped, bare]).orderBy('seq').execute();
    expect(steps).toEqual([
      { transaction_id: stepped, step: 'daily_stats', outcome: 'ok', detail: '2026-11-27' },
      { transaction_id: bare, step: 'daily_stats', outcome: 'ok', detail: null },
    ]);
    const table = await sql<{ n: number }>`select count(*)::int as n from information_schema.tables where table_schema = ${a} and table_name = 'daily_stats_counted'`.execute(h.db);
    expect(table.rows[0]!.n).toBe(0);
  });
});
