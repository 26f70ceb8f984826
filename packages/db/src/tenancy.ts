import type { Kysely, Transaction } from 'kysely';
import type { CentralDb } from './database.ts';
import type { TenantTables } from './tenant-types.ts';
import { registerTenantSession } from './prepared.ts';

/** A Kysely instance bound to one merchant's schema. The only way to reach tenant tables. */
export type TenantDb = Kysely<TenantTables>;
export type TenantTx = Transaction<TenantTables>;

/**
 * The central tables through a tenant transaction's connection: central and tenant writes that must
 * commit together (a location's listing beside its settings) share the one transaction.
 */
export function centralIn(tx: TenantDb): CentralDb {
  return (tx as unknown as CentralDb).withSchema('public');
}

const SCHEMA_NAME = /^t_[a-z0-9_]{1,60}$/;

/** True for a well-formed tenant schema name; anything else never reaches SQL. */
export function isTenantSchemaName(name: string): boolean {
  return SCHEMA_NAME.test(name);
}

/** Schema name for a new merchant: `t_<slug>_<random>` so two slugs never collide after normalisation. */
export function newTenantSchemaName(slug: string): string {
  const base = slug.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 40) || 'm';
  const rnd = crypto.getRandomValues(new Uint8Array(4));
  return `t_${base}_${Buffer.from(rnd).toString('hex')}`;
}

const boundByCentral = new WeakMap<CentralDb, Map<string, TenantDb>>();

/** Binds the central connection to a tenant schema (`withSchema`); the name comes from the token's `tenant_database`. */
export function bindTenant(db: CentralDb, tenantDatabase: string): TenantDb {
  if (!isTenantSchemaName(tenantDatabase)) throw new Error(`Invalid tenant schema name`);
  // One bound instance per (connection pool, schema): binding builds a Kysely and a schema plugin,
  // which every authenticated request would otherwise pay for.
  let bound = boundByCentral.get(db);
  if (!bound) boundByCentral.set(db, (bound = new Map()));
  let tdb = bound.get(tenantDatabase);
  if (!tdb) {
    tdb = (db as unknown as Kysely<TenantTables>).withSchema(tenantDatabase);
    registerTenantSession(tdb, db, tenantDatabase);
    if (bound.size < 10_000) bound.set(tenantDatabase, tdb);
  }
  return tdb;
}
