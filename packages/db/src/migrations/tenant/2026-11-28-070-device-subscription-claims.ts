import type { Kysely } from 'kysely';

/**
 * Device routes after a tester's pass (docs/decisions.md "Device routes"): `subscription_claim` /
 * `subscription_claim_until` reserve a kiosk or kds for the subscribe request calling card-a for it
 * (committed before the call, cleared when its answer is applied or the call fails; a claim past its
 * time has lapsed), so two requests never bill one device and a claimed device is neither deleted nor
 * moved meanwhile. `platform_a_device_code_location` is the platform-a location the stored pairing code
 * was made at: a code made at another one is never answered again.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('devices')
    .addColumn('subscription_claim', 'text')
    .addColumn('subscription_claim_until', 'timestamptz')
    .addColumn('platform_a_device_code_location', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('devices').dropColumn('subscription_claim').dropColumn('subscription_claim_until').dropColumn('platform_a_device_code_location').execute();
}
