import { sql, type Kysely } from 'kysely';

/**
 * Two reads that scanned every transaction of the merchant:
 * - a kiosk reward is checked against the points the customer's other unsettled orders hold, under the
 *   account's lock: by customer (only orders with a customer are indexed);
 * - the post-capture sweep looks at the Complete transactions of the last day: by completion time.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('transactions_customer').on('transactions').column('customer_id').where(sql.ref('customer_id'), 'is not', null).execute();
  await db.schema.createIndex('transactions_completed').on('transactions').column('completed_at').where(sql.ref('status'), '=', 'Complete').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('transactions_completed').execute();
  await db.schema.dropIndex('transactions_customer').execute();
}
