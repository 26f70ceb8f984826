import { sql, type Kysely } from 'kysely';

/**
 * Which of our catalog items stands for a register-c item at one of our locations (issue 17 item 4):
 * the register-c sync and the menu suggestion match by this link (the register-c sku is the external
 * reference), so renaming either side does not break the match. An item deleted here drops its links.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('register_c_item_links')
    .addColumn('location_id', 'uuid', (c) => c.notNull())
    .addColumn('sku', 'text', (c) => c.notNull().check(sql`char_length(sku) between 1 and 200`))
    .addColumn('item_id', 'uuid', (c) => c.notNull().references('items.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('register_c_item_links_pkey', ['location_id', 'sku'])
    .execute();
  await db.schema.createIndex('register_c_item_links_item').on('register_c_item_links').column('item_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('register_c_item_links').ifExists().execute();
}
