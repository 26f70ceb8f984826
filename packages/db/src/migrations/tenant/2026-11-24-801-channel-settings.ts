import { sql, type Kysely } from 'kysely';

/**
 * Channel settings of a location (spec 1 "Online ordering and table QR ordering"): one JSON document per
 * location and kind (`online_ordering`, `online`, `in_house`, `qr_ordering`); absent rows read as the
 * defaults of packages/core/src/online-ordering/channel-settings.ts. The snooze of online ordering is a
 * column so the public routes read it without parsing.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('channel_settings')
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('online_ordering', 'online', 'in_house', 'qr_ordering')`))
    .addColumn('settings', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('snoozed_until', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('channel_settings_pk', ['location_id', 'kind'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('channel_settings').ifExists().execute();
}
