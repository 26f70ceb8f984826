import { sql, type Kysely } from 'kysely';

/**
 * Read indexes found at a busy merchant's size (778k kitchen tickets, 100k customers; decisions.md,
 * twenty-sixth session):
 * - `kitchen_tickets_open_station` (station_id, queued_at) over the open tickets only: a station's
 *   screen (`GET /kds/orders`, oldest first), its metrics, its items still to make and the open-ticket
 *   check of a station's deletion read the open tickets of one station. It replaces
 *   `kitchen_tickets_station_open` (station_id, status, queued_at), which held every finished ticket
 *   too and answered no reader the partial one does not (none reads a station's tickets by another status).
 * - `kitchen_tickets_location_ready` and `kitchen_tickets_station_ready` (…, ready_at) over the tickets
 *   made ready: the back-office KDS report (a location's day) and the device's metrics (a station's day)
 *   read every ticket of the location or station and kept one day's.
 * - `customers_created_id` (created_at, id): the customer data table pages newest first in that order;
 *   each page sorted every customer.
 * - `transactions_scheduled_for` over the scheduled orders: the register's order stream
 *   (`GET /pos/channel-orders`, polled) takes the orders paid lately or due lately or later; without an
 *   index on `scheduled_for` that `or` read every transaction of the merchant (~200 ms a poll at 150k),
 *   with it a bitmap of `transactions_completed` and this one reads the live orders only (~10 ms).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('kitchen_tickets_open_station').on('kitchen_tickets').columns(['station_id', 'queued_at']).where(sql.ref('status'), '<>', 'Complete').execute();
  await db.schema.createIndex('kitchen_tickets_location_ready').on('kitchen_tickets').columns(['location_id', 'ready_at']).where(sql.ref('ready_at'), 'is not', null).execute();
  await db.schema.createIndex('kitchen_tickets_station_ready').on('kitchen_tickets').columns(['station_id', 'ready_at']).where(sql.ref('ready_at'), 'is not', null).execute();
  await db.schema.createIndex('customers_created_id').on('customers').columns(['created_at', 'id']).execute();
  await db.schema.createIndex('transactions_scheduled_for').on('transactions').column('scheduled_for').where(sql.ref('scheduled_for'), 'is not', null).execute();
  // Last: a dropped index locks its table against reads until the schema's migrations commit; the builds
  // above only hold writes back (the upgrade review measured kitchen screens blocked 3.5 s with the drop first).
  await db.schema.dropIndex('kitchen_tickets_station_open').ifExists().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('transactions_scheduled_for').ifExists().execute();
  await db.schema.dropIndex('customers_created_id').ifExists().execute();
  await db.schema.dropIndex('kitchen_tickets_station_ready').ifExists().execute();
  await db.schema.dropIndex('kitchen_tickets_location_ready').ifExists().execute();
  await db.schema.createIndex('kitchen_tickets_station_open').ifNotExists().on('kitchen_tickets').columns(['station_id', 'status', 'queued_at']).execute();
  await db.schema.dropIndex('kitchen_tickets_open_station').ifExists().execute();
}
