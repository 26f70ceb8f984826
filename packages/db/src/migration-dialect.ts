import { Kysely, PostgresAdapter, PostgresDialect, sql, type DatabaseIntrospector, type SchemaMetadata, type TableMetadata } from 'kysely';
import { poolOf } from './database.ts';

/**
 * Kysely's PostgreSQL adapter takes one advisory lock for every migrator in the database, which would
 * serialise tenant schemas migrated side by side. A lock keyed by the schema still keeps two processes
 * from migrating the same schema at once.
 */
class SchemaLockAdapter extends PostgresAdapter {
  constructor(
    private readonly schema: string,
    private readonly lockTimeoutMs?: number,
  ) {
    super();
  }
  override async acquireMigrationLock(db: Kysely<any>): Promise<void> {
    await sql`select pg_advisory_lock(hashtextextended(${'migrations:' + this.schema}, 0))`.execute(db);
    // On the migration's connection, after the advisory lock (which may rightly wait for another migrator):
    // the migration's own table locks give up after this long instead of queueing every reader behind them.
    if (this.lockTimeoutMs !== undefined) await sql`select set_config('lock_timeout', ${`${this.lockTimeoutMs}ms`}, false)`.execute(db);
  }
  override async releaseMigrationLock(db: Kysely<any>): Promise<void> {
    // The connection goes back to the pool: its lock timeout with it would make a later query give up.
    if (this.lockTimeoutMs !== undefined) await sql`reset lock_timeout`.execute(db);
    await sql`select pg_advisory_unlock(hashtextextended(${'migrations:' + this.schema}, 0))`.execute(db);
  }
}

/**
 * The migrator only asks "does this schema / this table exist". Kysely's introspector answers by reading
 * every column of every table in every schema, so each migrator run cost time in proportion to the number
 * of merchants. This one looks at the one schema the migrator works in, and reads no columns.
 */
class SchemaIntrospector implements DatabaseIntrospector {
  constructor(
    private readonly db: Kysely<any>,
    private readonly schema: string,
  ) {}
  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select nspname as name from pg_namespace where nspname = ${this.schema}`.execute(this.db);
    return rows;
  }
  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string }>`select tablename as name from pg_tables where schemaname = ${this.schema}`.execute(this.db);
    return rows.map((r) => ({ name: r.name, schema: this.schema, isView: false, isForeign: false, columns: [] }));
  }
}

/**
 * A Kysely over the same pool for migrating `schema`: its own migration lock and a cheap introspector;
 * with `lockTimeoutMs`, its migrations' table locks wait at most that long (`lock_timeout`).
 * Falls back to `db` itself when its pool is unknown (a Kysely not made by createDatabase).
 */
export function migrationDb(db: Kysely<any>, schema: string, lockTimeoutMs?: number): Kysely<any> {
  const pool = poolOf(db);
  if (!pool) return db;
  const dialect = new PostgresDialect({ pool });
  dialect.createAdapter = () => new SchemaLockAdapter(schema, lockTimeoutMs);
  dialect.createIntrospector = (k) => new SchemaIntrospector(k, schema);
  // Not destroyed: destroying would end the shared pool, which belongs to `db`.
  return new Kysely<any>({ dialect });
}
