import type { Kysely } from 'kysely';

/**
 * Two keys the post-capture sequence paid for on every row (issue 12 item 10):
 * - `transaction_steps` had two unique indexes, the `seq` primary key and `(transaction_id, step)`;
 *   every trace row (seven per captured transaction) went into both. `(transaction_id, step)`, the
 *   key the writers use (once per step), is the primary key now; `seq` stays as the order of the steps
 *   of a transaction, found through it.
 * - `daily_stats_counted` (a transaction counted once in the daily stats) lost its foreign key to
 *   `transactions`, as the trace did: its insert took a key-share lock on the transaction's row. Only
 *   test-mode transactions are ever deleted, and those are never counted.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transaction_steps').dropConstraint('transaction_steps_pkey').execute();
  await db.schema.alterTable('transaction_steps').dropConstraint('transaction_steps_once').execute();
  await db.schema.alterTable('transaction_steps').addPrimaryKeyConstraint('transaction_steps_pkey', ['transaction_id', 'step']).execute();
  await db.schema.alterTable('daily_stats_counted').dropConstraint('daily_stats_counted_transaction_id_fkey').ifExists().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('transaction_steps').dropConstraint('transaction_steps_pkey').execute();
  await db.schema.alterTable('transaction_steps').addPrimaryKeyConstraint('transaction_steps_pkey', ['seq']).execute();
  await db.schema.alterTable('transaction_steps').addUniqueConstraint('transaction_steps_once', ['transaction_id', 'step']).execute();
  await db
    .deleteFrom('daily_stats_counted')
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('transactions').select('id').whereRef('transactions.id', '=', 'daily_stats_counted.transaction_id'))))
    .execute();
  await db.schema.alterTable('daily_stats_counted').addForeignKeyConstraint('daily_stats_counted_transaction_id_fkey', ['transaction_id'], 'transactions', ['id']).onDelete('cascade').execute();
}
