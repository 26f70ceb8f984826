import { sql, type Kysely } from 'kysely';

/**
 * register-b location mappings (issue 17 item 4): one of our locations to one register-b branch, under
 * the merchant's register-b connection. `branch_name` is the branch's name when it was last seen at
 * register-b (refreshed by `POST /register-b/locations/sync`, which also drops mappings to branches that
 * vanished). One branch maps to at most one location.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('register_b_mappings')
    .addColumn('merchant_id', 'uuid', (c) => c.notNull().references('merchants.id').onDelete('cascade'))
    .addColumn('location_id', 'uuid', (c) => c.notNull())
    .addColumn('connection_id', 'uuid', (c) => c.notNull().references('integration_connections.id').onDelete('cascade'))
    .addColumn('branch_id', 'text', (c) => c.notNull().check(sql`char_length(branch_id) between 1 and 200`))
    .addColumn('branch_name', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('register_b_mappings_pkey', ['merchant_id', 'location_id'])
    .addUniqueConstraint('register_b_mappings_branch', ['connection_id', 'branch_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('register_b_mappings').ifExists().execute();
}
