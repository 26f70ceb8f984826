import type { Kysely } from 'kysely';

/**
 * Payment-test-mode orders completed before the twenty-seventh session were marked `is_free` by the
 * free-order capture that completes them, whatever their total: a 2.80 test order read as free in the
 * back office and the export, and its receipt printed no tender row. `is_free` is the free-order flag
 * (spec 3): cleared where the order was not free.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.updateTable('transactions').set({ is_free: false }).where('is_test', '=', true).where('is_free', '=', true).where('total', '>', 0).execute();
}

/** Nothing to undo: the flag was wrong before. */
export async function down(_db: Kysely<any>): Promise<void> {}
