import { sql, type Kysely } from 'kysely';

/**
 * Billing profiles (issue 18 item 5): a named billing identity of the merchant; `card_a_customer_id`
 * is the card-a customer whose subscriptions (`billing_subscriptions.customer_id`) belong to it.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const ts = (c: any) => c.notNull().defaultTo(sql`now()`);
  await db.schema
    .createTable('billing_profiles')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('card_a_customer_id', 'text', (c) => c.unique())
    .addColumn('created_at', 'timestamptz', ts)
    .addColumn('updated_at', 'timestamptz', ts)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('billing_profiles').ifExists().execute();
}
