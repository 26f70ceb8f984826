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
    const result = await session.pool.query({ name, text, values: values as unknown[] });
    return result.rows as R[];
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
