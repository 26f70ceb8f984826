import { sql, type Kysely } from 'kysely';

/**
 * The stale payment sweep (`findStaleStarts`) also reads the online orders left `Unpaid` that the
 * customer can still pay at the provider (`UNPAID_STILL_PAYABLE`). `Unpaid` rows are every declined
 * order kept for good, so they get their own partial index, as `Awaiting Payment` has (migration 109).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createIndex('transactions_unpaid_online')
    .on('transactions')
    .column('updated_at')
    .where(sql<boolean>`status = 'Unpaid' and channel in ('online_ordering', 'table_qr')`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('transactions_unpaid_online').execute();
}
