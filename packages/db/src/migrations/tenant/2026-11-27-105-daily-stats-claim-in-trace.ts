import { sql, type Kysely } from 'kysely';

/**
 * The daily stats count a transaction once because its `daily_stats` trace step is written once (the
 * step's insert is the claim, as `queue_jobs` is for the jobs) instead of a row in
 * `daily_stats_counted` beside the step: the two were always written by the same statement, so every
 * counted transaction has its step, and the table went. One row and one index entry less per capture.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // A counted transaction whose step is missing keeps its claim (there is none: they were written together).
  await db
    .insertInto('transaction_steps')
    .columns(['transaction_id', 'step', 'outcome'])
    .expression(db.selectFrom('daily_stats_counted').select(['transaction_id', sql.lit('daily_stats').as('step'), sql.lit('ok').as('outcome')]))
    .onConflict((oc) => oc.columns(['transaction_id', 'step']).doNothing())
    .execute();
  await db.schema.dropTable('daily_stats_counted').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('daily_stats_counted').addColumn('transaction_id', 'uuid', (c) => c.primaryKey()).execute();
  await db
    .insertInto('daily_stats_counted')
    .columns(['transaction_id'])
    .expression(db.selectFrom('transaction_steps').select('transaction_id').where('step', '=', 'daily_stats'))
    .execute();
}
