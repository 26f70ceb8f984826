import type { Kysely } from 'kysely';

/**
 * The address a Delivery order is delivered to (docs/decisions.md "Online and table QR ordering after a
 * prober's pass"): `{line1, line2, city, postal_code, country, instructions}`, null for every other order.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').addColumn('delivery_address', 'jsonb').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transactions').dropColumn('delivery_address').execute();
}
