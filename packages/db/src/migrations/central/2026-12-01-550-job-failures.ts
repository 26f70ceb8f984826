import { sql, type Kysely } from 'kysely';

/**
 * Jobs that failed for good (no retries left, or refused): the record the operator keeps once the
 * worker purges a failed bee-queue job from Redis (7 days after its failure). One row per bee-queue job
 * (`prefix`, `queue`, `job_id`), with what is needed to look into it or run it again: the job's name,
 * its outbox row, the envelope it carried, its last error and its number of failed runs.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('job_failures')
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('queue', 'text', (c) => c.notNull())
    .addColumn('job_id', 'text', (c) => c.notNull())
    .addColumn('job', 'text', (c) => c.notNull())
    .addColumn('outbox_id', 'bigint')
    .addColumn('envelope', 'jsonb')
    .addColumn('error', 'text', (c) => c.notNull())
    .addColumn('runs', 'integer', (c) => c.notNull())
    .addColumn('failed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('job_failures_pkey', ['prefix', 'queue', 'job_id'])
    .execute();
  await sql`create index job_failures_failed_at on job_failures (failed_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('job_failures').ifExists().execute();
}
