import type { Kysely } from 'kysely';

/**
 * The register's refunds by location and business date, as its sales are (`pos_transactions_location_day`):
 * the X and Z reports read one location's day and the sales report pages through a window of days per
 * location; without it each read scanned every refund of the merchant.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('pos_refunds_location_day').on('pos_refunds').columns(['location_id', 'business_date']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('pos_refunds_location_day').ifExists().execute();
}
