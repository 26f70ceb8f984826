import { sql, type Kysely } from 'kysely';

/**
 * A transaction's sync state with its location's register (what the last `order.dispatch` ended
 * with) in a narrow table of its own instead of two columns of `transactions`. Written once per
 * dispatch, it updated the wide transaction row again right after its capture: with the capture's
 * own new version already on the page that update seldom stayed there (HOT), so it added an entry to
 * each of the row's ten indexes, the costliest statement of the post-capture sequence (issue 12 item 10).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('transaction_register_sync')
    .addColumn('transaction_id', 'uuid', (c) => c.primaryKey().references('transactions.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('detail', 'text')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db
    .insertInto('transaction_register_sync')
    .columns(['transaction_id', 'status', 'detail'])
    .expression((eb) => eb.selectFrom('transactions').select(['id', 'pos_sync_status', 'pos_sync_detail']).where('pos_sync_status', 'is not', null))
    .execute();
  await db.schema.alterTable('transactions').dropColumn('pos_sync_status').dropColumn('pos_sync_detail').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').addColumn('pos_sync_status', 'text').addColumn('pos_sync_detail', 'text').execute();
  await db
    .updateTable('transactions')
    .set((eb) => ({
      pos_sync_status: eb.selectFrom('transaction_register_sync as s').select('s.status').whereRef('s.transaction_id', '=', 'transactions.id'),
      pos_sync_detail: eb.selectFrom('transaction_register_sync as s').select('s.detail').whereRef('s.transaction_id', '=', 'transactions.id'),
    }))
    .execute();
  await db.schema.dropTable('transaction_register_sync').execute();
}
