import { sql, type Kysely } from 'kysely';

/**
 * Fiscal data module ids are platform-wide: a software module's signing key is derived from its id
 * alone (HKDF of the master key), and a remote module is configured by its id (`FDM_REMOTE_SECRETS`).
 * `fdm_devices.fdm_id` was unique only within a tenant, so a merchant could enrol another merchant's
 * module id and sign with its key (or count events on its remote module). This registry holds each id
 * once, for the merchant that enrolled it; the tenant row stays the source of the enrolment itself.
 * Existing enrolments are registered here, oldest first.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('fdm_registry')
    .addColumn('fdm_id', 'text', (c) => c.primaryKey())
    .addColumn('merchant_id', 'uuid', (c) => c.notNull().references('merchants.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('fdm_registry_merchant').on('fdm_registry').column('merchant_id').execute();
  const merchants = await sql<{ id: string; tenant_database: string }>`select id, tenant_database from merchants order by created_at, id`.execute(db);
  for (const m of merchants.rows) {
    const exists = await sql<{ t: string | null }>`select to_regclass(${`"${m.tenant_database}".fdm_devices`})::text as t`.execute(db);
    if (!exists.rows[0]?.t) continue;
    await sql`insert into fdm_registry (fdm_id, merchant_id, created_at)
      select fdm_id, ${m.id}::uuid, created_at from ${sql.table(`${m.tenant_database}.fdm_devices`)} order by created_at
      on conflict (fdm_id) do nothing`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('fdm_registry').ifExists().execute();
}
