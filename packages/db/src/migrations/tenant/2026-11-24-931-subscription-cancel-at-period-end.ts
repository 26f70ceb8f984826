import { type Kysely } from 'kysely';

/** A subscription whose cancellation is scheduled for the end of its paid period (issue 18 item 5). */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('billing_subscriptions').addColumn('cancel_at_period_end', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('billing_subscriptions').dropColumn('cancel_at_period_end').execute();
}
