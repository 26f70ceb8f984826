import { sql, type Kysely } from 'kysely';

/**
 * What the post-capture sequence writes (spec 3 "Post-capture sequence"): the steps a transaction has
 * been through (in order, once each), the kitchen item documents `PaymentCaptured` writes, the
 * register sync state of a transaction, and daily stats per location.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const ts = (c: any) => c.notNull().defaultTo(sql`now()`);
  await db.schema
    .createTable('transaction_steps')
    .addColumn('seq', 'bigserial', (c) => c.primaryKey())
    .addColumn('transaction_id', 'uuid', (c) => c.notNull().references('transactions.id').onDelete('cascade'))
    .addColumn('step', 'text', (c) => c.notNull())
    .addColumn('outcome', 'text', (c) => c.notNull())
    .addColumn('detail', 'text')
    .addColumn('at', 'timestamptz', ts)
    .addUniqueConstraint('transaction_steps_once', ['transaction_id', 'step'])
    .execute();
  await db.schema
    .createTable('kitchen_items')
    .addColumn('transaction_id', 'uuid', (c) => c.notNull().references('transactions.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('location_id', 'uuid', (c) => c.notNull())
    .addColumn('order_no', 'integer', (c) => c.notNull())
    .addColumn('item_id', 'uuid', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('qty', 'integer', (c) => c.notNull())
    .addColumn('unit_price', 'integer', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('modifiers', 'jsonb', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('queued'))
    .addColumn('created_at', 'timestamptz', ts)
    .addPrimaryKeyConstraint('kitchen_items_pk', ['transaction_id', 'position'])
    .execute();
  await db.schema.alterTable('transactions').addColumn('pos_sync_status', 'text').execute();
  await db.schema.alterTable('transactions').addColumn('pos_sync_detail', 'text').execute();
  await db.schema
    .createTable('daily_stats')
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id').onDelete('cascade'))
    .addColumn('date', 'date', (c) => c.notNull())
    .addColumn('transactions', 'integer', (c) => c.notNull())
    .addColumn('total', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('daily_stats_pk', ['location_id', 'date'])
    .execute();
  // A transaction counts once in the stats even when its job runs twice.
  await db.schema
    .createTable('daily_stats_counted')
    .addColumn('transaction_id', 'uuid', (c) => c.primaryKey().references('transactions.id').onDelete('cascade'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('daily_stats_counted').ifExists().execute();
  await db.schema.dropTable('daily_stats').ifExists().execute();
  await db.schema.alterTable('transactions').dropColumn('pos_sync_detail').execute();
  await db.schema.alterTable('transactions').dropColumn('pos_sync_status').execute();
  await db.schema.dropTable('kitchen_items').ifExists().execute();
  await db.schema.dropTable('transaction_steps').ifExists().execute();
}
