import { sql, type Kysely } from 'kysely';

/**
 * Daily auto-sync schedules (issue 17 item 5, spec 1 "Auto-sync schedule payload"), one per integration
 * connection: `sync_time` stored verbatim as local wall-clock `HH:MM`, `sync_timezone` the IANA zone it
 * is read in, `next_run_at` the UTC instant the worker's scheduler computed (null: recompute; every
 * write resets it). The scheduler claims due rows with FOR UPDATE SKIP LOCKED.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('integration_auto_syncs')
    .addColumn('connection_id', 'uuid', (c) => c.primaryKey().references('integration_connections.id').onDelete('cascade'))
    .addColumn('merchant_id', 'uuid', (c) => c.notNull().references('merchants.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('sync_time', 'text', (c) => c.check(sql`sync_time ~ '^([01]?[0-9]|2[0-3]):[0-5][0-9]$'`))
    .addColumn('sync_timezone', 'text', (c) => c.check(sql`char_length(sync_timezone) between 1 and 64`))
    .addColumn('enabled', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('next_run_at', 'timestamptz')
    .addColumn('last_run_at', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // The scheduler's scan: scheduled rows whose next run is due or unset.
  await sql`create index integration_auto_syncs_due on integration_auto_syncs (next_run_at nulls first) where sync_time is not null and enabled`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('integration_auto_syncs').ifExists().execute();
}
