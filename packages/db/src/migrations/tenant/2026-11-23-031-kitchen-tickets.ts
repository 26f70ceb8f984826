import { sql, type Kysely } from 'kysely';

/**
 * Kitchen tickets (issue 14): what a station's kitchen display shows. One ticket per order and
 * station (a captured kiosk or online transaction, a fired register order), with the lines routed to
 * that station, the KDS state (status, hold, priority) and the recorded state-change times that
 * metrics and reports are computed from.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const ts = (c: any) => c.notNull().defaultTo(sql`now()`);
  await db.schema
    .createTable('kitchen_tickets')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id').onDelete('cascade'))
    .addColumn('station_id', 'uuid', (c) => c.notNull().references('kitchen_stations.id').onDelete('cascade'))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('source_id', 'uuid', (c) => c.notNull())
    // Which fire of a register order (its version after the fire); 1 for a transaction.
    .addColumn('fire_no', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('order_no', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('Queued'))
    .addColumn('held', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('prioritized', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('queued_at', 'timestamptz', ts)
    .addColumn('started_at', 'timestamptz')
    .addColumn('ready_at', 'timestamptz')
    .addColumn('completed_at', 'timestamptz')
    .addColumn('recalled_at', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', ts)
    // One ticket per order, fire and station: a re-run of the capture listener writes nothing new.
    .addUniqueConstraint('kitchen_tickets_once', ['source', 'source_id', 'fire_no', 'station_id'])
    .execute();
  await db.schema.createIndex('kitchen_tickets_station_open').on('kitchen_tickets').columns(['station_id', 'status', 'queued_at']).execute();
  await db.schema
    .createTable('kitchen_ticket_lines')
    .addColumn('ticket_id', 'uuid', (c) => c.notNull().references('kitchen_tickets.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('item_id', 'uuid', (c) => c.notNull())
    // The register line's uuid (what a later fire has already sent); null for a transaction's line.
    .addColumn('line_ref', 'text')
    .addColumn('category_id', 'uuid')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('qty', 'integer', (c) => c.notNull())
    .addColumn('modifiers', 'jsonb', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('Queued'))
    .addPrimaryKeyConstraint('kitchen_ticket_lines_pk', ['ticket_id', 'position'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('kitchen_ticket_lines').ifExists().execute();
  await db.schema.dropTable('kitchen_tickets').ifExists().execute();
}
