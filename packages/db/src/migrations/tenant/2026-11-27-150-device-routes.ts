import { sql, type Kysely } from 'kysely';

/**
 * The device routes of spec 1 (docs/decisions.md "Device routes"): `payment_enabled` is the kiosk's
 * terminal payment switch (`activate-payment` / `deactivate-payment`; on for every existing device, so
 * nothing that pays today stops); `platform_a_device_code_id` is the platform-a pairing code last made
 * for the device (`platform-a-device-code`), read again until the terminal is paired.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('devices')
    .addColumn('payment_enabled', 'boolean', (c) => c.notNull().defaultTo(sql`true`))
    .addColumn('platform_a_device_code_id', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('devices').dropColumn('payment_enabled').dropColumn('platform_a_device_code_id').execute();
}
