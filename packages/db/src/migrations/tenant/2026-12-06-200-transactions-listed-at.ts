import { sql, type Kysely } from 'kysely';

/**
 * The date a transaction counts on in the back office: when it completed, else when it was created
 * (`coalesce(completed_at, created_at)`). The data table, stats and export filter `from`/`to` on it, so a
 * kiosk order started at 23:59 and paid at 00:01 counts on the day it was paid, as in the sales report.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('transactions_listed_at').on('transactions').expression(sql`coalesce(completed_at, created_at)`).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('transactions_listed_at').ifExists().execute();
}
