import { sql, type Kysely } from 'kysely';

/**
 * Local records of the merchant's card-a subscriptions (spec 3 "Card-a events", issue 13 item 4):
 * synchronised from `customer.subscription.*` events. A subscription covers the kiosk and kds devices
 * of its location (or the devices named in its metadata); their `subscription_active_until` follows
 * it. `payment_method_id` and `mandate_id` come from `setup_intent.succeeded` (SEPA), and are what a
 * failed invoice is retried and a cancelled subscription recovered with. `event_created` keeps events
 * that arrive out of order from undoing a newer state; `recovered_by` names the subscription that
 * replaced this one after a SEPA recovery.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const ts = (c: any) => c.notNull().defaultTo(sql`now()`);
  await db.schema
    .createTable('billing_subscriptions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull().defaultTo('card-a'))
    .addColumn('provider_subscription_id', 'text', (c) => c.notNull().unique())
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id').onDelete('cascade'))
    .addColumn('price_id', 'text')
    .addColumn('device_ids', 'jsonb')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('current_period_end', 'timestamptz')
    .addColumn('cancel_reason', 'text')
    .addColumn('canceled_at', 'timestamptz')
    .addColumn('payment_method_id', 'text')
    .addColumn('mandate_id', 'text')
    .addColumn('recovered_by', 'text')
    .addColumn('event_created', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', ts)
    .addColumn('updated_at', 'timestamptz', ts)
    .execute();
  await db.schema.createIndex('billing_subscriptions_customer').on('billing_subscriptions').column('customer_id').execute();
  await db.schema.createIndex('billing_subscriptions_location').on('billing_subscriptions').column('location_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('billing_subscriptions').ifExists().execute();
}
