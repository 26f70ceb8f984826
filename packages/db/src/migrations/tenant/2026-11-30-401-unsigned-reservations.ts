import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/**
 * The fiscal recovery sweep looks every run for register records still waiting for their signature
 * (docs/decisions.md "Fiscal and the business day": records left behind between the module's answer
 * and the record): refunds without `fiscal`, movements without `journal_id`, closed days without
 * `journal_id`. Such rows are few (remote modules only, while unsigned); partial indexes keep the
 * lookups from reading the whole tables every minute. SETTLING orders use `pos_orders_location_state`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('pos_refunds_unsigned').on('pos_refunds').column('created_at').where(sql.ref('fiscal'), 'is', null).ifNotExists().execute();
  await db.schema.createIndex('pos_till_movements_unsigned').on('pos_till_movements').column('created_at').where(sql.ref('journal_id'), 'is', null).ifNotExists().execute();
  await db.schema
    .createIndex('pos_business_days_unsigned')
    .on('pos_business_days')
    .column('closed_at')
    .where(sql<boolean>`status = 'closed' and journal_id is null`)
    .ifNotExists()
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of ['pos_refunds_unsigned', 'pos_till_movements_unsigned', 'pos_business_days_unsigned']) await db.schema.dropIndex(name).ifExists().execute();
}
