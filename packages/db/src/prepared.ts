import { createHash } from 'node:crypto';
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
}
