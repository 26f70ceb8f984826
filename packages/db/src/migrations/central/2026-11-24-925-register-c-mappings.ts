import { sql, type Kysely } from 'kysely';

/**
 * register-c location mappings (issue 17 item 4): one of our locations to one register-c business
 * location, under the merchant's register-c connection; `status` `active` or `paused` (a paused mapping
 * is skipped by syncs and order pushes).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('register_c_mappings')
    .addColumn('merchant_id', 'uuid', (c) => c.notNull().references('merchants.id').onDelete('cascade'))
    .addColumn('location_id', 'uuid', (c) => c.notNull())
    .addColumn('connection_id', 'uuid', (c) => c.notNull().references('integration_connections.id').onDelete('cascade'))
    .addColumn('register_c_location_id', 'text', (c) => c.notNull().check(sql`char_length(register_c_location_id) between 1 and 200`))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active').check(sql`status in ('active', 'paused')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('register_c_mappings_pkey', ['merchant_id', 'location_id'])
    .addUniqueConstraint('register_c_mappings_external', ['connection_id', 'register_c_location_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('register_c_mappings').ifExists().execute();
}
