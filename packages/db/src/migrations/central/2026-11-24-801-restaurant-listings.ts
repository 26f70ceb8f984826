import { sql, type Kysely } from 'kysely';

/**
 * Restaurant suggestions of online ordering (issue 16): a platform-wide listing of the locations
 * with online ordering on (suggestions cross merchants, so the listing is central), kept in step with
 * each location's online ordering settings, and one upvote per customer and location.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('restaurant_listings')
    .addColumn('location_id', 'uuid', (c) => c.primaryKey())
    .addColumn('merchant_id', 'uuid', (c) => c.notNull().references('merchants.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('latitude', 'double precision')
    .addColumn('longitude', 'double precision')
    .addColumn('categories', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('listed', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('upvotes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable('restaurant_upvotes')
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('restaurant_listings.location_id').onDelete('cascade'))
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('restaurant_upvotes_pk', ['location_id', 'customer_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('restaurant_upvotes').ifExists().execute();
  await db.schema.dropTable('restaurant_listings').ifExists().execute();
}
