import { sql, type Kysely } from 'kysely';

/**
 * Stock held by a customer checkout (kiosk, online, table QR) between its order and its payment, so two
 * checkouts cannot both buy the last unit of a tracked item. One row per order and item; it counts
 * while the order's payment is open and the row has not expired, and the post-capture sequence's
 * release step deletes it (spec 3, step 4: the order's `cart_session_id` names it).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('stock_reservations')
    .addColumn('transaction_id', 'uuid', (c) => c.notNull().references('transactions.id').onDelete('cascade'))
    .addColumn('item_id', 'uuid', (c) => c.notNull().references('items.id').onDelete('cascade'))
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id').onDelete('cascade'))
    .addColumn('qty', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('stock_reservations_pk', ['transaction_id', 'item_id'])
    .execute();
  await db.schema.createIndex('stock_reservations_item_idx').on('stock_reservations').columns(['location_id', 'item_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('stock_reservations').ifExists().execute();
}
