import { sql, type Kysely } from 'kysely';

/**
 * Table QR ordering (issue 16 item 2).
 * - `table_sections`: a named group of numbered tables (1..tables) at a location.
 * - `table_sessions`: a table's open session; the partial unique index allows one open session per
 *   table, so concurrent scans converge on one row (insert ... on conflict do nothing, then read).
 * - `transactions.table_session_id`: a paid order bound to its table session.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('table_sections')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('tables', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('table_sections_location').on('table_sections').columns(['location_id', 'name']).execute();
  await db.schema
    .createTable('table_sessions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id').onDelete('cascade'))
    .addColumn('table_section_id', 'uuid', (c) => c.notNull().references('table_sections.id').onDelete('cascade'))
    .addColumn('table_number', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('opened_at', 'timestamptz', (c) => c.notNull())
    .addColumn('closed_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('table_sessions_one_open').on('table_sessions').columns(['table_section_id', 'table_number']).unique().where(sql.ref('status'), '=', 'open').execute();
  await db.schema.alterTable('transactions').addColumn('table_session_id', 'uuid', (c) => c.references('table_sessions.id').onDelete('set null')).execute();
  await db.schema.createIndex('transactions_table_session').on('transactions').column('table_session_id').where('table_session_id', 'is not', null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('transactions_table_session').ifExists().execute();
  await db.schema.alterTable('transactions').dropColumn('table_session_id').execute();
  await db.schema.dropTable('table_sessions').ifExists().execute();
  await db.schema.dropTable('table_sections').ifExists().execute();
}
