import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import pg from 'pg';
import { sql } from 'kysely';
import { createDatabase, type DatabaseHandle } from './database.ts';
import { migrateCentral, migrateTenant, TENANT_MIGRATIONS } from './migrator.ts';
import { newTenantSchemaName } from './tenancy.ts';

/**
 * An upgrade migrates live schemas. A migration waiting for a table's lock (behind a long report) queued
 * every later reader of that table behind it, and one transaction for all of a schema's migrations held
 * the first one's locks until the last committed: the upgrade review measured 9.4 s of blocked reads.
 * Now a live schema's migrations wait at most the lock timeout, commit one by one, and try again.
 */
const URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ordering_test';
const DUE = '2026-12-05-100-kitchen-ticket-due';
const INDEXES = '2026-12-05-200-read-indexes';
let h: DatabaseHandle;
const schemas: string[] = [];

beforeAll(async () => {
  h = createDatabase(URL, { max: 6 });
  await migrateCentral(h.db);
});
afterAll(async () => {
  for (const s of schemas) {
    await sql`drop schema if exists ${sql.id(s)} cascade`.execute(h.db);
    await h.db.deleteFrom('tenant_schema_versions').where('schema_name', '=', s).execute();
  }
  await h.close();
});

/** A migrated tenant schema whose `names` are undone and pending again, as before an upgrade. */
async function schemaBehind(names: string[]): Promise<string> {
  const schema = newTenantSchemaName('locks');
  schemas.push(schema);
  await migrateTenant(h.db, schema);
  for (const name of [...names].reverse()) {
    await TENANT_MIGRATIONS[name]!.down!(h.db.withSchema(schema));
    await sql`delete from ${sql.id(schema, 'kysely_migration')} where name = ${name}`.execute(h.db);
  }
  return schema;
}

/** A second session holding `statement`'s table lock in an open transaction, as a long report or write does. */
async function holder(statement: string): Promise<{ release(): Promise<void> }> {
  const c = new pg.Client({ connectionString: URL });
  await c.connect();
  await c.query('begin');
  await c.query(statement);
  return {
    async release() {
      await c.query('commit');
      await c.end();
    },
  };
}

/** Milliseconds a read of `table` takes on a connection of its own. */
async function readMs(schema: string, table: string): Promise<number> {
  const c = new pg.Client({ connectionString: URL });
  await c.connect();
  try {
    const t0 = performance.now();
    await c.query(`select count(*) from ${schema}.${table}`);
    return performance.now() - t0;
  } finally {
    await c.end();
  }
}

const recorded = async (schema: string) =>
  (await sql<{ name: string }>`select name from ${sql.id(schema, 'kysely_migration')} order by name`.execute(h.db)).rows.map((r) => r.name);
const hasColumn = async (schema: string, table: string, column: string) =>
  (await sql<{ n: number }>`select count(*)::int as n from information_schema.columns where table_schema = ${schema} and table_name = ${table} and column_name = ${column}`.execute(h.db)).rows[0]!.n === 1;

describe('migrations of a live schema', () => {
  test('a migration waiting for a busy table gives its lock up after the timeout, so readers are not queued behind it; it tries again and lands', async () => {
    const schema = await schemaBehind([DUE]);
    // A long report reads the kitchen tickets; the pending migration adds a column to them.
    const report = await holder(`select * from ${schema}.kitchen_tickets`);
    const busy: [string, number][] = [];
    const migrating = migrateTenant(h.db, schema, undefined, { lockTimeoutMs: 300, backoffMs: 200, attempts: 50, onBusy: (_w, m, a) => void busy.push([m, a]) });
    let released = false;
    try {
      await Bun.sleep(100);
      // Before: this read queued behind the migration's lock request until the report ended (3 s here).
      const ms = await Promise.race([readMs(schema, 'kitchen_tickets'), Bun.sleep(3000).then(() => Infinity)]);
      expect(ms).toBeLessThan(1500);
      expect(await hasColumn(schema, 'kitchen_tickets', 'due_at')).toBe(false);
      await Bun.sleep(300);
      await report.release();
      released = true;
      await migrating;
    } finally {
      if (!released) await report.release();
    }
    expect(busy.length).toBeGreaterThan(0);
    expect(busy[0]).toEqual([DUE, 1]);
    expect(await hasColumn(schema, 'kitchen_tickets', 'due_at')).toBe(true);
    expect(await recorded(schema)).toContain(DUE);
    // The connection went back to the pool without the migration's lock timeout.
    const timeouts = await Promise.all(Array.from({ length: 6 }, () => sql<{ t: string }>`select current_setting('lock_timeout') as t`.execute(h.db)));
    expect(timeouts.map((r) => r.rows[0]!.t)).toEqual(Array(6).fill('0'));
  }, 30_000);

  test('each migration of a live schema commits on its own: one waiting for a busy table holds no lock of the one before', async () => {
    const schema = await schemaBehind([DUE, INDEXES]);
    // A write in progress on the customers: the index build of the second migration waits for it.
    const write = await holder(`update ${schema}.customers set updated_at = updated_at where false`);
    let whileWaiting: Promise<{ names: string[]; readMs: number }> | undefined;
    const migrating = migrateTenant(h.db, schema, undefined, {
      lockTimeoutMs: 300,
      backoffMs: 500,
      attempts: 50,
      onBusy: () => void (whileWaiting ??= (async () => ({ names: await recorded(schema), readMs: await readMs(schema, 'kitchen_tickets') }))()),
    });
    let released = false;
    try {
      // Before: the first migration's lock on the kitchen tickets was held while the second waited (until the write ended).
      const seen = await Promise.race([
        (async () => {
          while (!whileWaiting) await Bun.sleep(20);
          return whileWaiting;
        })(),
        Bun.sleep(4000).then(() => undefined),
      ]);
      expect(seen).toBeDefined();
      expect(seen!.names).toContain(DUE);
      expect(seen!.names).not.toContain(INDEXES);
      expect(seen!.readMs).toBeLessThan(1500);
      await write.release();
      released = true;
      await migrating;
    } finally {
      if (!released) await write.release();
    }
    expect(await recorded(schema)).toEqual(Object.keys(TENANT_MIGRATIONS).sort());
    const version = await h.db.selectFrom('tenant_schema_versions').select('latest').where('schema_name', '=', schema).executeTakeFirstOrThrow();
    expect(version.latest).toBe(Object.keys(TENANT_MIGRATIONS).sort().at(-1)!);
  }, 30_000);

  test('a table busy past every attempt fails the run, naming the migration; nothing of it is left half-done', async () => {
    const schema = await schemaBehind([DUE]);
    const report = await holder(`select * from ${schema}.kitchen_tickets`);
    try {
      const err = await migrateTenant(h.db, schema, undefined, { lockTimeoutMs: 100, backoffMs: 50, attempts: 2 }).catch((e: Error) => e);
      expect(err).toBeInstanceOf(Error);
      expect((err as Error).message).toBe(`Migration failed in tenant schema ${schema} at ${DUE}: canceling statement due to lock timeout`);
    } finally {
      await report.release();
    }
    expect(await hasColumn(schema, 'kitchen_tickets', 'due_at')).toBe(false);
    expect(await recorded(schema)).not.toContain(DUE);
    // Run again once the table is free: it lands.
    await migrateTenant(h.db, schema);
    expect(await hasColumn(schema, 'kitchen_tickets', 'due_at')).toBe(true);
  }, 30_000);

  test('a new schema takes all of its migrations at once', async () => {
    const schema = newTenantSchemaName('locks');
    schemas.push(schema);
    await migrateTenant(h.db, schema);
    expect(await recorded(schema)).toEqual(Object.keys(TENANT_MIGRATIONS).sort());
  });
});
