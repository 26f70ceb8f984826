import type { Kysely } from 'kysely';

/**
 * The reseller a ledger row's commission is owed to (spec 3 `invoice.paid`: reseller subscription
 * commission). Recorded when the row is written, so a merchant moving to another reseller later leaves
 * the commission already earned with the one it was earned by. Null on every other row. No foreign
 * key: a reseller is a bare id on merchants and users (admin-vendor-override), not a table.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('commission_ledger').addColumn('reseller_id', 'uuid').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('commission_ledger').dropColumn('reseller_id').execute();
}
