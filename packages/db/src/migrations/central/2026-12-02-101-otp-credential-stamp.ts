import type { Kysely } from 'kysely';

/**
 * A pending two-factor sign-in remembers the password it was started with (SHA-256 of the hash): a
 * reset that commits while the sign-in is being written cannot leave it able to complete. Rows from
 * before have none and cannot complete (they live 15 minutes; the user signs in again).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('otp_challenges').addColumn('credential_stamp', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('otp_challenges').dropColumn('credential_stamp').execute();
}
