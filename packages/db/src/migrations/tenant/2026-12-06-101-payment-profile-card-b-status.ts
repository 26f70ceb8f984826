import type { Kysely } from 'kysely';

/**
 * The card-b account's state as card-b reported it (spec 3 "Card-b events" 8193 and 8194), shown with
 * the payment profile: when the account was connected to the platform, whether it is verified (KYC;
 * null until card-b said), and the time of the verification event applied, so an older one delivered
 * late changes nothing.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('payment_profiles')
    .addColumn('card_b_connected_at', 'timestamptz')
    .addColumn('card_b_verified', 'boolean')
    .addColumn('card_b_verification_at', 'timestamptz')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('payment_profiles').dropColumn('card_b_connected_at').dropColumn('card_b_verified').dropColumn('card_b_verification_at').execute();
}
