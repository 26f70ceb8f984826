import { sql, type Kysely } from 'kysely';

/**
 * When the menu was last pushed to the marketplace or register (`sync-menu`), apart from
 * `menu_sync_requested_at`, which a provider's "catalog changed" event also sets: the status's
 * `menu_synced_at` showed that event's time as a sync, for a menu never pushed. Filled from the
 * connections' logged `menu_synced` actions.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('integration_connections').addColumn('menu_synced_at', 'timestamptz').execute();
  await sql`update integration_connections c set menu_synced_at = s.at
    from (select connection_id, max(created_at) as at from integration_events where kind = 'admin' and event_type = 'menu_synced' group by connection_id) s
    where s.connection_id = c.id`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('integration_connections').dropColumn('menu_synced_at').execute();
}
