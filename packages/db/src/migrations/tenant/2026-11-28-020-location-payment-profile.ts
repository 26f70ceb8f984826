import type { Kysely } from 'kysely';

/**
 * Which payment profile a location uses, and whether the profile's card-a account can take payments
 * (spec 3 "Provider choice": a kiosk gets card-a when the location's payment profile reports in-person
 * provider card-a). A location without a profile uses the merchant's default one; a deleted profile
 * leaves its locations on the default. `card_a_charges_enabled` mirrors the connected account's
 * `charges_enabled` (account.updated events, re-read at the provider), so a kiosk order reads it
 * without calling card-a.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment_profiles').addColumn('card_a_charges_enabled', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
  await db.schema.alterTable('locations').addColumn('payment_profile_id', 'uuid', (c) => c.references('payment_profiles.id').onDelete('set null')).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('locations').dropColumn('payment_profile_id').execute();
  await db.schema.alterTable('payment_profiles').dropColumn('card_a_charges_enabled').execute();
}
