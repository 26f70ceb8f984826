import type { Kysely } from 'kysely';

/**
 * A storefront payment request's `Idempotency-Key` (docs/decisions.md "Online and table ordering
 * robustness"): the client's key and a hash of what it asked, so a retried request answers the order
 * the first one created. One order per key and location.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').addColumn('request_key', 'text').addColumn('request_hash', 'text').execute();
  await db.schema.createIndex('transactions_location_request_key').on('transactions').columns(['location_id', 'request_key']).unique().where('request_key', 'is not', null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('transactions_location_request_key').ifExists().execute();
  await db.schema.alterTable('transactions').dropColumn('request_key').dropColumn('request_hash').execute();
}
