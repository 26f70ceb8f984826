import type { Kysely } from 'kysely';

/**
 * Fiscal journal seals (issue 9): HMACs under a key the database does not hold, so a journal altered
 * with every later hash recomputed no longer verifies. Rows journaled before this stay unsealed
 * (null) and verify as `bad_seal` (docs/decisions.md, Fiscal).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('fiscal_journal').addColumn('seal', 'text').addColumn('result_seal', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('fiscal_journal').dropColumn('seal').dropColumn('result_seal').execute();
}
