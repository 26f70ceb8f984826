import type { Kysely } from 'kysely';

/**
 * The cash rounding of a register refund (docs/decisions.md "Register and pricing money: rounding, tips,
 * modifiers, variants"): `amount` stays the refunded lines' total (the turnover a refund takes off, as its VAT
 * groups do), `rounding` is lines - cash handed back, so a cash-rounded sale hands back what was paid.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('pos_refunds').addColumn('rounding', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('pos_refunds').dropColumn('rounding').execute();
}
