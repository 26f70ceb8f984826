import { sql, type Kysely } from 'kysely';

/**
 * The live kitchen display (issue 14):
 * - `kitchen_events`: every change a kitchen screen shows (a new ticket, an order action, an item or
 *   modifier mark, a customer signal), numbered per location without gaps by `kitchen_event_cursors`
 *   (the counter row is locked by the writing transaction, so numbers commit in order). A screen that
 *   reconnects passes the last number it saw and receives exactly the ones after it.
 * - item and modifier marks, customer signals on tickets;
 * - a KDS device's own settings overrides (over its KDS profile) and its push token.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('kitchen_event_cursors')
    .addColumn('location_id', 'uuid', (c) => c.primaryKey().references('locations.id').onDelete('cascade'))
    .addColumn('last_seq', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createTable('kitchen_events')
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id').onDelete('cascade'))
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('station_id', 'uuid', (c) => c.notNull())
    .addColumn('ticket_id', 'uuid', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('kitchen_events_pk', ['location_id', 'seq'])
    .execute();
  await db.schema.alterTable('kitchen_ticket_lines').addColumn('modifier_statuses', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`)).execute();
  await db.schema
    .alterTable('kitchen_tickets')
    .addColumn('customer_arrived_at', 'timestamptz')
    .addColumn('estimated_arrival_at', 'timestamptz')
    .execute();
  await db.schema
    .alterTable('devices')
    .addColumn('kds_settings', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('kds_push_token', 'text')
    .addColumn('kds_push_platform', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('devices').dropColumn('kds_push_platform').dropColumn('kds_push_token').dropColumn('kds_settings').execute();
  await db.schema.alterTable('kitchen_tickets').dropColumn('estimated_arrival_at').dropColumn('customer_arrived_at').execute();
  await db.schema.alterTable('kitchen_ticket_lines').dropColumn('modifier_statuses').execute();
  await db.schema.dropTable('kitchen_events').ifExists().execute();
  await db.schema.dropTable('kitchen_event_cursors').ifExists().execute();
}
