import { sql, type Kysely } from 'kysely';

/**
 * The stale payment sweep also looks, every few minutes and for every merchant, for storefront orders left
 * `Pending` (stored, their payment never started: `findOrphanedPending`): a few rows of a table that only grows.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('transactions_pending').on('transactions').column('created_at').where(sql.ref('status'), '=', 'Pending').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('transactions_pending').execute();
}
