import { sql, type Kysely } from 'kysely';

/**
 * One row per tenant schema: the fingerprint of the tenant migration set last applied to it. `migrateAll`
 * compares it with the current set in one query, so a deploy with nothing to do touches no tenant schema.
 * Keyed by schema (not merchant) so a schema migrated before its merchant row commits is still recorded.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('tenant_schema_versions')
    .addColumn('schema_name', 'text', (c) => c.primaryKey())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('latest', 'text', (c) => c.notNull())
    .addColumn('migrated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('tenant_schema_versions').ifExists().execute();
}
