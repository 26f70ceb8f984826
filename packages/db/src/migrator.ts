import { sql, type Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationProvider, type MigrationResultSet } from 'kysely/migration';
import type { CentralDb } from './database.ts';
import { isTenantSchemaName } from './tenancy.ts';
import * as central001 from './migrations/central/2026-11-21-001-foundation.ts';
import * as central002team from './migrations/central/2026-11-21-002-team.ts';
import * as tenant001 from './migrations/tenant/2026-11-21-001-foundation.ts';
import * as tenant002devices from './migrations/tenant/2026-11-21-002-devices.ts';
import * as tenant003team from './migrations/tenant/2026-11-21-003-team.ts';
import * as tenant004 from './migrations/tenant/2026-11-21-004-register.ts';
import * as tenant005 from './migrations/tenant/2026-11-21-005-tills-days.ts';
import * as tenant20261123catalog from './migrations/tenant/2026-11-23-001-catalog.ts';
import * as tenant20261123contents from './migrations/tenant/2026-11-23-002-contents-inventories.ts';
import * as tenant20261123transactions from './migrations/tenant/2026-11-23-003-transactions.ts';
import * as tenant20261123postcapture from './migrations/tenant/2026-11-23-004-post-capture.ts';

/** Migrations are listed here (not read from disk) so a bundled service carries them. Date-prefixed names order them. */
export const CENTRAL_MIGRATIONS: Record<string, Migration> = {
  '2026-11-21-001-foundation': central001,
  '2026-11-21-002-team': central002team,
};
export const TENANT_MIGRATIONS: Record<string, Migration> = {
  '2026-11-21-001-foundation': tenant001,
  '2026-11-21-002-devices': tenant002devices,
  '2026-11-21-003-team': tenant003team,
  '2026-11-21-004-register': tenant004,
  '2026-11-21-005-tills-days': tenant005,
  '2026-11-23-001-catalog': tenant20261123catalog,
  '2026-11-23-002-contents-inventories': tenant20261123contents,
  '2026-11-23-003-transactions': tenant20261123transactions,
  '2026-11-23-004-post-capture': tenant20261123postcapture,
};

class StaticProvider implements MigrationProvider {
  constructor(private readonly migrations: Record<string, Migration>) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return this.migrations;
  }
}

function check(result: MigrationResultSet, where: string): void {
  if (result.error) {
    const failed = result.results?.find((r) => r.status === 'Error');
    throw new Error(`Migration failed in ${where}${failed ? ` at ${failed.migrationName}` : ''}: ${String((result.error as Error)?.message ?? result.error)}`);
  }
}

export async function migrateCentral(db: CentralDb): Promise<void> {
  const migrator = new Migrator({ db: db as Kysely<any>, provider: new StaticProvider(CENTRAL_MIGRATIONS), allowUnorderedMigrations: true });
  check(await migrator.migrateToLatest(), 'central schema');
}

/** Creates the tenant schema when missing and brings it to the latest tenant migration. */
export async function migrateTenant(db: CentralDb, schema: string): Promise<void> {
  if (!isTenantSchemaName(schema)) throw new Error('Invalid tenant schema name');
  await sql`create schema if not exists ${sql.id(schema)}`.execute(db);
  const migrator = new Migrator({
    db: (db as Kysely<any>).withSchema(schema),
    provider: new StaticProvider(TENANT_MIGRATIONS),
    migrationTableSchema: schema,
    // Features land in parallel branches; a later-dated file may be applied before an earlier one.
    allowUnorderedMigrations: true,
  });
  check(await migrator.migrateToLatest(), `tenant schema ${schema}`);
}

/** Central first, then every merchant's schema. */
export async function migrateAll(db: CentralDb): Promise<{ tenants: number }> {
  await migrateCentral(db);
  const merchants = await db.selectFrom('merchants').select('tenant_database').execute();
  for (const m of merchants) await migrateTenant(db, m.tenant_database);
  return { tenants: merchants.length };
}
