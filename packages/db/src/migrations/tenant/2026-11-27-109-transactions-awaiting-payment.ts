import { sql, type Kysely } from 'kysely';

/**
 * The stale payment sweep (`findStaleStarts`) reads, every few minutes and for every merchant, the
 * transactions still `Awaiting Payment` by the time of their start: a few rows of a table that only grows.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('transactions_awaiting_payment').on('transactions').column('updated_at').where(sql.ref('status'), '=', 'Awaiting Payment').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('transactions_awaiting_payment').execute();
}
