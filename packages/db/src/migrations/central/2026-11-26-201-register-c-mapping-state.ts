import { sql, type Kysely } from 'kysely';

/**
 * register-c administration state kept on the mapping row (issue 17 item 4): where our online and kiosk
 * orders go at register-c (`order_settings`), whether register-c is the location's menu source, the
 * menu suggestion the merchant dismissed (a digest of the diff, so a new difference shows again) and
 * the outcome of the last sync.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('register_c_mappings')
    .addColumn('order_settings', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('menu_source', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('suggestion_dismissed_digest', 'text')
    .addColumn('last_synced_at', 'timestamptz')
    .addColumn('last_sync_counts', 'jsonb')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('register_c_mappings')
    .dropColumn('order_settings')
    .dropColumn('menu_source')
    .dropColumn('suggestion_dismissed_digest')
    .dropColumn('last_synced_at')
    .dropColumn('last_sync_counts')
    .execute();
}
