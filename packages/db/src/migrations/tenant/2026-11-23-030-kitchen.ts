import { sql, type Kysely } from 'kysely';

/**
 * Kitchen routing (issue 14): stations of a location and the categories each serves (one station per
 * location may be the fallback for lines no station serves), and the KDS device a station is shown on
 * (`devices.station_id`; a deleted station unbinds its devices).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const ts = (c: any) => c.notNull().defaultTo(sql`now()`);
  await db.schema
    .createTable('kitchen_stations')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('category_ids', sql`uuid[]`, (c) => c.notNull().defaultTo(sql`'{}'::uuid[]`))
    .addColumn('is_fallback', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', ts)
    .addColumn('updated_at', 'timestamptz', ts)
    .execute();
  await db.schema.createIndex('kitchen_stations_location').on('kitchen_stations').column('location_id').execute();
  // At most one fallback station per location.
  await db.schema.createIndex('kitchen_stations_one_fallback').on('kitchen_stations').column('location_id').unique().where(sql.ref('is_fallback'), '=', true).execute();
  await db.schema
    .alterTable('devices')
    .addColumn('station_id', 'uuid', (c) => c.references('kitchen_stations.id').onDelete('set null'))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('devices').dropColumn('station_id').execute();
  await db.schema.dropTable('kitchen_stations').ifExists().execute();
}
