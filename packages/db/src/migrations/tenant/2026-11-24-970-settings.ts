import { sql, type Kysely } from 'kysely';

/**
 * Back-office settings (issue 18 item 5): location contact fields, the receipt layout of each
 * location, and the merchant's languages with the translations they hold (check-incomplete counts
 * what a language still lacks). At most one default language (partial unique index).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const ts = (c: any) => c.notNull().defaultTo(sql`now()`);
  await db.schema
    .alterTable('locations')
    .addColumn('phone', 'text')
    .addColumn('email', 'text')
    .addColumn('city', 'text')
    .addColumn('postal_code', 'text')
    .addColumn('updated_at', 'timestamptz', ts)
    .execute();

  await db.schema
    .createTable('location_receipts')
    .addColumn('location_id', 'uuid', (c) => c.primaryKey().references('locations.id').onDelete('cascade'))
    .addColumn('header', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('footer', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('show_logo', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('show_address', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('show_vat_number', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('show_order_number', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('updated_at', 'timestamptz', ts)
    .execute();

  await db.schema
    .createTable('languages')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('code', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('is_default', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('unpublished').check(sql`status in ('published','unpublished')`))
    .addColumn('created_at', 'timestamptz', ts)
    .addColumn('updated_at', 'timestamptz', ts)
    .execute();
  await db.schema.createIndex('languages_one_default').on('languages').column('is_default').unique().where('is_default', '=', true).execute();

  await db.schema
    .createTable('translations')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('language_id', 'uuid', (c) => c.notNull().references('languages.id').onDelete('cascade'))
    .addColumn('subject_type', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'uuid', (c) => c.notNull())
    .addColumn('field', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', ts)
    .addUniqueConstraint('translations_one_per_field', ['language_id', 'subject_type', 'subject_id', 'field'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('translations').ifExists().execute();
  await db.schema.dropTable('languages').ifExists().execute();
  await db.schema.dropTable('location_receipts').ifExists().execute();
  for (const c of ['phone', 'email', 'city', 'postal_code', 'updated_at']) await db.schema.alterTable('locations').dropColumn(c).execute();
}
