import type { Kysely } from 'kysely';

/**
 * The contact a storefront order was placed with (docs/decisions.md "Online payments and public surfaces
 * after a prober's pass"): the payment body's `customer.email` and `customer.phone`, null when not given.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').addColumn('customer_email', 'text').addColumn('customer_phone', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').dropColumn('customer_email').dropColumn('customer_phone').execute();
}
