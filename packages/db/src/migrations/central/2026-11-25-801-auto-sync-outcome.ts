import { type Kysely } from 'kysely';

/**
 * The outcome of the last provider sync a schedule ran (issue 17, the sync job calling providers): what
 * the status routes show beside the schedule. `last_scheduled_for` is the scheduled instant that run
 * stood for, so a redelivered job of an instant already synced is not run again.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('integration_auto_syncs')
    .addColumn('last_status', 'text')
    .addColumn('last_error', 'text')
    .addColumn('last_counts', 'jsonb')
    .addColumn('last_finished_at', 'timestamptz')
    .addColumn('last_scheduled_for', 'timestamptz')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const c of ['attempts', 'last_scheduled_for', 'last_finished_at', 'last_counts', 'last_error', 'last_status']) await db.schema.alterTable('integration_auto_syncs').dropColumn(c).execute();
}
