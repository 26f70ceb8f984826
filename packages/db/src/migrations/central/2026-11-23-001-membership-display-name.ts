import type { Kysely } from 'kysely';

/**
 * The name a merchant gives a member (issue 8 point 4): a merchant edits only its own membership,
 * never the person's global account name, which only its owner changes. Null shows the account name.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('memberships').addColumn('display_name', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('memberships').dropColumn('display_name').execute();
}
