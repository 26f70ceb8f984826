import { sql, type Kysely } from 'kysely';

/**
 * Devices and device profiles (issue "Identity and access", point 5): the `device_profiles` table, the
 * link from `devices.device_profile_id` (deleting a profile unbinds its devices: ON DELETE SET NULL),
 * and the index the back-office device list filters on.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('device_profiles')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull().check(sql`type in ('pos','kiosk','kds')`))
    .addColumn('settings', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .alterTable('devices')
    .addForeignKeyConstraint('devices_device_profile_fk', ['device_profile_id'], 'device_profiles', ['id'], (c) => c.onDelete('set null'))
    .execute();
  await db.schema.createIndex('devices_location_live').on('devices').columns(['location_id', 'type']).where(sql.ref('deleted_at'), 'is', null).execute();
  await db.schema.createIndex('devices_device_profile_id').on('devices').column('device_profile_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('devices_device_profile_id').ifExists().execute();
  await db.schema.dropIndex('devices_location_live').ifExists().execute();
  await db.schema.alterTable('devices').dropConstraint('devices_device_profile_fk').ifExists().execute();
  await db.schema.dropTable('device_profiles').ifExists().execute();
}
