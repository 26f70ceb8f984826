import { sql, type Kysely } from 'kysely';

/** Content items (uploaded images, bytes in the object store), item images, stock levels and their history. */
export async function up(db: Kysely<any>): Promise<void> {
  const ts = (c: any) => c.notNull().defaultTo(sql`now()`);
  await db.schema
    .createTable('contents')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('alt_text', 'text')
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'integer', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', ts)
    .addColumn('updated_at', 'timestamptz', ts)
    .execute();
  await db.schema.alterTable('items').addColumn('image_content_id', 'uuid', (c) => c.references('contents.id').onDelete('set null')).execute();

  await db.schema
    .createTable('inventory_levels')
    .addColumn('item_id', 'uuid', (c) => c.notNull().references('items.id').onDelete('cascade'))
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id').onDelete('cascade'))
    .addColumn('quantity', 'integer', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', ts)
    .addPrimaryKeyConstraint('inventory_levels_pk', ['item_id', 'location_id'])
    .execute();
  await db.schema
    .createTable('inventory_history')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('item_id', 'uuid', (c) => c.notNull().references('items.id').onDelete('cascade'))
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull().check(sql`type in ('restock','sale','waste','adjustment','count')`))
    .addColumn('quantity_change', 'integer', (c) => c.notNull())
    .addColumn('quantity_after', 'integer', (c) => c.notNull())
    .addColumn('note', 'text')
    .addColumn('user_id', 'uuid')
    .addColumn('created_at', 'timestamptz', ts)
    .execute();
  await db.schema.createIndex('inventory_history_item_idx').on('inventory_history').columns(['item_id', 'location_id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('inventory_history').ifExists().execute();
  await db.schema.dropTable('inventory_levels').ifExists().execute();
  await db.schema.alterTable('items').dropColumn('image_content_id').execute();
  await db.schema.dropTable('contents').ifExists().execute();
}
