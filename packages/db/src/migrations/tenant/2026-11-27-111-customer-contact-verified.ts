import type { Kysely } from 'kysely';

/**
 * Which of a customer's contacts were proven by a sign-in (a code received there, or an identity
 * provider's verified e-mail). A contact typed by the customer, a kiosk or staff is not: at sign-in it
 * identifies the account only if verified there, or if the account has no verified contact at all.
 * Existing rows start unverified (no record says which contacts a past sign-in proved).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('customers')
    .addColumn('email_verified', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('phone_verified', 'boolean', (c) => c.notNull().defaultTo(false))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('customers').dropColumn('email_verified').dropColumn('phone_verified').execute();
}
