import { sql, type Kysely } from 'kysely';

/**
 * AI generation (issue 18 item 6): the merchant's credit balance (one row, never below zero — a CHECK
 * backs the guarded debit) and generated photos, polled by id.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('ai_credits')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('balance', 'integer', (c) => c.notNull().check(sql`balance >= 0`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.insertInto('ai_credits').values({ id: 1, balance: 0 }).execute();
  await db.schema
    .createTable('ai_photos')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('prompt', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('processing', 'completed', 'failed')`))
    .addColumn('mime_type', 'text')
    .addColumn('image', 'bytea')
    .addColumn('created_by', 'uuid')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ai_photos').ifExists().execute();
  await db.schema.dropTable('ai_credits').ifExists().execute();
}
