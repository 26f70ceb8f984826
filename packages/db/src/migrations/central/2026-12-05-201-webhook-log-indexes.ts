import type { Kysely } from 'kysely';

/**
 * The back office's webhook log filters a merchant's events by status or by provider and pages them
 * newest first (`created_at desc, id desc`). `webhook_logs_merchant_created` finds the merchant's
 * rows in order but then reads and drops every row of another status or provider: with 2M rows a
 * filtered page (and its count) walked the merchant's whole log (decisions.md, twenty-sixth session).
 * With the filter column after the merchant, a page reads its rows and the count only the matching ones.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('webhook_logs_merchant_status').on('webhook_logs').columns(['merchant_id', 'status', 'created_at', 'id']).execute();
  await db.schema.createIndex('webhook_logs_merchant_provider').on('webhook_logs').columns(['merchant_id', 'provider', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('webhook_logs_merchant_provider').ifExists().execute();
  await db.schema.dropIndex('webhook_logs_merchant_status').ifExists().execute();
}
