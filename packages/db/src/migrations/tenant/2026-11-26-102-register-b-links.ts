import { sql, type Kysely } from 'kysely';

/**
 * register-b links of the merchant's own rows (issue 17 item 4):
 * - `register_b_items`: the catalog item a register-b product was synced into (the sync's external
 *   reference: a second sync updates the same item instead of creating another);
 * - `register_b_relations`: the customer a register-b relation (customer) number is linked to, one to one.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('register_b_items')
    .addColumn('product_id', 'text', (c) => c.primaryKey().check(sql`char_length(product_id) between 1 and 200`))
    .addColumn('item_id', 'uuid', (c) => c.notNull().unique().references('items.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable('register_b_relations')
    .addColumn('relation_number', 'text', (c) => c.primaryKey().check(sql`char_length(relation_number) between 1 and 100`))
    .addColumn('customer_id', 'uuid', (c) => c.notNull().unique().references('customers.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('register_b_relations').ifExists().execute();
  await db.schema.dropTable('register_b_items').ifExists().execute();
}
