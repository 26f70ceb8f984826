import { sql, type Kysely } from 'kysely';

/** Branding profiles (issue 18 item 5): colours, fonts of the option list, a logo; at most one default. */
export async function up(db: Kysely<any>): Promise<void> {
  const ts = (c: any) => c.notNull().defaultTo(sql`now()`);
  await db.schema
    .createTable('branding_profiles')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('is_default', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('primary_color', 'text', (c) => c.notNull().defaultTo('#1F2937'))
    .addColumn('accent_color', 'text', (c) => c.notNull().defaultTo('#2563EB'))
    .addColumn('background_color', 'text', (c) => c.notNull().defaultTo('#FFFFFF'))
    .addColumn('text_color', 'text', (c) => c.notNull().defaultTo('#111827'))
    .addColumn('heading_font', 'text', (c) => c.notNull().defaultTo('Inter'))
    .addColumn('body_font', 'text', (c) => c.notNull().defaultTo('Inter'))
    .addColumn('logo_content_id', 'uuid', (c) => c.references('contents.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', ts)
    .addColumn('updated_at', 'timestamptz', ts)
    .execute();
  await db.schema.createIndex('branding_profiles_one_default').on('branding_profiles').column('is_default').unique().where('is_default', '=', true).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('branding_profiles').ifExists().execute();
}
