import { sql, type Kysely } from 'kysely';

/**
 * Inbound marketplace orders (issue 17; spec 3 "Pending: transaction created, no payment initiated
 * (third-party orders)"): a delivery-a / delivery-b order becomes a transaction on channel `delivery`,
 * paid by the marketplace (`payment_provider` the marketplace), keyed by the marketplace's order id
 * (one transaction per marketplace order, whatever the number of webhooks), with the marketplace's
 * latest order status.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').dropConstraint('transactions_channel_check').execute();
  await db.schema.alterTable('transactions').addCheckConstraint('transactions_channel_check', sql`channel in ('kiosk','online_ordering','table_qr','delivery')`).execute();
  await db.schema.alterTable('transactions').dropConstraint('transactions_payment_provider_check').execute();
  await db.schema
    .alterTable('transactions')
    .addCheckConstraint('transactions_payment_provider_check', sql`payment_provider in ('card-a','card-b','platform-a','delivery-a','delivery-b')`)
    .execute();
  await db.schema
    .alterTable('transactions')
    .addColumn('external_provider', 'text')
    .addColumn('external_order_id', 'text', (c) => c.check(sql`char_length(external_order_id) between 1 and 200`))
    .addColumn('external_status', 'text')
    .execute();
  await db.schema.createIndex('transactions_external_order').on('transactions').columns(['external_provider', 'external_order_id']).unique().where(sql.ref('external_order_id'), 'is not', null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('transactions_external_order').ifExists().execute();
  for (const c of ['external_status', 'external_order_id', 'external_provider']) await db.schema.alterTable('transactions').dropColumn(c).execute();
}
