import { sql, type Kysely } from 'kysely';

/**
 * Issue 17: a location has at most one register-a record (the `/register-a/{locationId}` routes and
 * the order dispatch read it by location).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create unique index integration_connections_register_a_location on integration_connections (merchant_id, location_id) where provider = 'register-a'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index if exists integration_connections_register_a_location`.execute(db);
}
