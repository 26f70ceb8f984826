import { sql, type Kysely } from 'kysely';

/**
 * AI photo credit purchases (issue 18 item 6): a package bought through card-a's hosted checkout or
 * charged to the billing profile's saved card. `provider_ref` (checkout session or payment intent)
 * is unique; a purchase turns `paid` once, and only that transition credits the balance.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ai_credit_purchases')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('package_id', 'text', (c) => c.notNull())
    .addColumn('credits', 'integer', (c) => c.notNull().check(sql`credits > 0`))
    .addColumn('amount', 'integer', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull().check(sql`method in ('checkout', 'saved_card')`))
    .addColumn('provider_ref', 'text', (c) => c.unique())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'paid', 'failed')`))
    .addColumn('created_by', 'uuid')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('paid_at', 'timestamptz')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ai_credit_purchases').ifExists().execute();
}
