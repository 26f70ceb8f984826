import { sql, type Kysely } from 'kysely';

/** Guided setup videos (issue 18 item 6): one video per setup task, managed by global admins for everyone. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('guided_setup_videos')
    .addColumn('task_id', 'text', (c) => c.primaryKey())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('video_url', 'text', (c) => c.notNull())
    .addColumn('updated_by', 'uuid')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('guided_setup_videos').ifExists().execute();
}
