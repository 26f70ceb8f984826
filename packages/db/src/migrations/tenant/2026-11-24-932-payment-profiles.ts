import { sql, type Kysely } from 'kysely';

/** Payment profiles (issue 18 item 5): a named payment setup with its card-a connected account and card-b account; at most one default. */
export async function up(db: Kysely<any>): Promise<void> {
  const ts = (c: any) => c.notNull().defaultTo(sql`now()`);
  await db.schema
    .createTable('payment_profiles')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('is_default', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('card_a_account_id', 'text')
    .addColumn('card_b_account_id', 'text')
    .addColumn('created_at', 'timestamptz', ts)
    .addColumn('updated_at', 'timestamptz', ts)
    .execute();
  await db.schema.createIndex('payment_profiles_one_default').on('payment_profiles').column('is_default').unique().where('is_default', '=', true).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('payment_profiles').ifExists().execute();
}
