import type { Kysely } from 'kysely';

/**
 * `pos_tills.flagged_variance`: the variance of the first count that needed `close_till` approval.
 * That count showed the expected cash, so a recount can no longer be blind: the close keeps needing
 * the approval, and the variance first counted stays on record.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('pos_tills').addColumn('flagged_variance', 'integer').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('pos_tills').dropColumn('flagged_variance').execute();
}
