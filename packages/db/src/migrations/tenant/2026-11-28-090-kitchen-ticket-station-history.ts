import type { Kysely } from 'kysely';

/**
 * Deleting a kitchen station no longer erases its tickets (decisions.md "Kitchen display"): the
 * cascade from `kitchen_stations` is dropped, so finished tickets keep the id of the station that made
 * them and stay in the kitchen reports. The station use case refuses the deletion while the station
 * has open tickets, so no open ticket is left without its station.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // Builder statements (not raw SQL): the tenant schema is applied to builder table names only.
  await db.schema.alterTable('kitchen_tickets').dropConstraint('kitchen_tickets_station_id_fkey').ifExists().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom('kitchen_tickets').where((eb) => eb.not(eb.exists(eb.selectFrom('kitchen_stations as s').select('s.id').whereRef('s.id', '=', 'kitchen_tickets.station_id')))).execute();
  await db.schema.alterTable('kitchen_tickets').addForeignKeyConstraint('kitchen_tickets_station_id_fkey', ['station_id'], 'kitchen_stations', ['id']).onDelete('cascade').execute();
}
