import { createHash } from 'node:crypto';
import { CompiledQuery, type Kysely } from 'kysely';
import type pg from 'pg';
import { poolOf } from './database.ts';
import { isTenantSchemaName } from './tenancy.ts';

/** The pool and schema behind a tenant-bound Kysely (`bindTenant`), for hot paths that skip the query builder. */
export interface TenantSession {
  readonly pool: pg.Pool;
  readonly schema: string;
}

const sessions = new WeakMap<object, TenantSession>();

/** Called by `bindTenant`: remembers which pool and schema a tenant-bound instance stands for. */
export function registerTenantSession(tdb: object, central: object, schema: string): void {
  const pool = poolOf(central);
  if (pool) sessions.set(tdb, { pool, schema });
}

/** The session of a tenant-bound instance, or undefined for one not made by `bindTenant` over `createDatabase`. */
export function tenantSession(tdb: object): TenantSession | undefined {
  return sessions.get(tdb);
}

/**
 * A statement on a tenant's tables whose text is built once per schema (the query builder's compile,
 * schema rewrite and freeze cost every call) and sent as a named prepared statement, so each pooled
 * connection parses and plans it once per schema instead of on every call.
 */
export class TenantStatement<R> {
  private readonly texts = new Map<string, { name: string; text: string }>();

  constructor(
    private readonly name: string,
    /** The SQL with `$schema` where the quoted schema name goes. */
    private readonly template: string,
  ) {}

  private forSchema(schema: string): { name: string; text: string } {
    let t = this.texts.get(schema);
    if (!t) {
      if (!isTenantSchemaName(schema)) throw new Error('Invalid tenant schema name');
      // Statement names are per connection; the schema's hash keeps them short and distinct.
      const tag = createHash('sha1').update(schema).digest('hex').slice(0, 12);
      t = { name: `${this.name}_${tag}`, text: this.template.replaceAll('$schema', `"${schema}"`) };
      this.texts.set(schema, t);
    }
    return t;
  }

  async run(session: TenantSession, values: readonly unknown[]): Promise<R[]> {
    const { name, text } = this.forSchema(session.schema);
    const client = await session.pool.connect();
    try {
      await makeRoomFor(client, name);
      const result = await client.query({ name, text, values: values as unknown[] });
      client.release();
      return result.rows as R[];
    } catch (e) {
      // As the pool's own query does: a client whose statement failed is not reused.
      client.release(e instanceof Error ? e : true);
      throw e;
    }
  }

  /**
   * Runs on a tenant-bound instance (as `run`, on its pool) or inside a transaction of one (on the
   * transaction's connection, unnamed: the query builder's driver sends no statement names).
   */
  async execute(db: Kysely<any>, values: readonly unknown[]): Promise<R[]> {
    const session = tenantSession(db);
    if (session) return this.run(session, values);
    const { text } = this.forSchema(schemaOf(db));
    return (await db.executeQuery<R>(CompiledQuery.raw(text, [...values]))).rows as R[];
  }
}

/**
 * Named statements a pooled connection keeps at most. Each is prepared per tenant schema, and a planned
 * statement holds 30-130 KB of the backend's memory (measured: the post-capture statements), so a
 * connection serving many merchants would otherwise grow without bound (ten statements for a thousand
 * merchants is over a gigabyte per backend). Past this, the connection's least recently used statement
 * is deallocated; using it again prepares it again.
 */
export const PREPARED_PER_CONNECTION = 64;

/** The statement names prepared on each connection, least recently used first. */
const preparedOn = new WeakMap<pg.PoolClient, Map<string, true>>();

/** Marks `name` as used on `client`, deallocating the least recently used ones past `PREPARED_PER_CONNECTION`. */
async function makeRoomFor(client: pg.PoolClient, name: string): Promise<void> {
  let used = preparedOn.get(client);
  if (!used) preparedOn.set(client, (used = new Map()));
  if (used.delete(name)) {
    used.set(name, true);
    return;
  }
  while (used.size >= PREPARED_PER_CONNECTION) {
    const oldest = used.keys().next().value as string;
    used.delete(oldest);
    await client.query(`deallocate "${oldest}"`);
    // The driver remembers what it prepared on the connection and would only bind the name next time.
    const connection = (client as unknown as { connection: { parsedStatements: Record<string, unknown>; submittedNamedStatements?: Record<string, unknown> } }).connection;
    delete connection.parsedStatements[oldest];
    if (connection.submittedNamedStatements) delete connection.submittedNamedStatements[oldest];
  }
  used.set(name, true);
}

const schemas = new WeakMap<object, string>();
/**
 * The tenant schema a tenant-bound instance or one of its transactions writes to. A transaction keeps
 * its parent's schema plugin but not its session, so the schema is read from what the plugin
 * makes of a table name (remembered per instance).
 */
export function schemaOf(db: Kysely<any>): string {
  const known = tenantSession(db)?.schema ?? schemas.get(db);
  if (known) return known;
  const compiled = db.selectFrom('transactions').select('id').compile().sql;
  const schema = /from "([^"]+)"\."transactions"/.exec(compiled)?.[1];
  if (!schema || !isTenantSchemaName(schema)) throw new Error('not a tenant-bound instance');
  schemas.set(db, schema);
  return schema;
}
