import { sql, type Kysely } from 'kysely';

/**
 * Table QR ordering (issue 16 item 2): a scan is unauthenticated and names only a location, a table
 * section and a table number, so the section must find its merchant centrally (as the device registry
 * does for activation codes). One row per table section; the tenant row stays the source of truth.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('table_qr_directory')
    .addColumn('table_section_id', 'uuid', (c) => c.primaryKey())
    .addColumn('merchant_id', 'uuid', (c) => c.notNull().references('merchants.id').onDelete('cascade'))
    .addColumn('location_id', 'uuid', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('table_qr_directory_location').on('table_qr_directory').columns(['location_id', 'merchant_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('table_qr_directory').ifExists().execute();
}
