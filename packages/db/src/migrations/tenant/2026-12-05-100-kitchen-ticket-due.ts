import type { Kysely } from 'kysely';

/**
 * A kitchen ticket's due time: an order scheduled for later (an online order's `scheduled_for`) reaches
 * the kitchen when it is paid, so the ticket says when it is due, or the kitchen would cook tomorrow's
 * lunch now. Null for an order for now. Nullable and without a default: adding it rewrites nothing.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('kitchen_tickets').addColumn('due_at', 'timestamptz').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('kitchen_tickets').dropColumn('due_at').execute();
}
