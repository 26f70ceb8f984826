import type { Kysely } from 'kysely';

/**
 * `transaction_steps` is the post-capture trace: about ten rows per captured transaction, written by
 * the worker's batch steps. Its foreign key to `transactions` made each of those inserts take a
 * key-share lock on the transaction's row (a heap write, a multixact when two batches met there), the
 * largest single cost of the sequence in the database (issue 12 item 10). The writers only record
 * steps of transactions they have just read or joined, and the one delete of a transaction (a test-mode
 * one) deletes its steps in the same statement, so the key is kept by the code instead.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transaction_steps').dropConstraint('transaction_steps_transaction_id_fkey').ifExists().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db
    .deleteFrom('transaction_steps')
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('transactions').select('id').whereRef('transactions.id', '=', 'transaction_steps.transaction_id'))))
    .execute();
  await db.schema.alterTable('transaction_steps').addForeignKeyConstraint('transaction_steps_transaction_id_fkey', ['transaction_id'], 'transactions', ['id']).onDelete('cascade').execute();
}
