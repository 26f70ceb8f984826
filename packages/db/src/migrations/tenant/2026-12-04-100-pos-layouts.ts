import { sql, type Kysely } from 'kysely';

/**
 * Register screen layouts (spec 2, `/back-office/pos/{locationId}/layouts`, MANAGE_POS_LAYOUTS): a
 * location's layouts, each a grid of `columns` x `rows` cells over named pages, and their tiles. A tile
 * is an item or a category of the catalog, by foreign key: deleting the item or category takes its
 * tiles with it, so a layout never points at something gone. At most one default layout per location;
 * names are unique per location (case-insensitive).
 */
export async function up(db: Kysely<any>): Promise<void> {
  const ts = (c: any) => c.notNull().defaultTo(sql`now()`);
  await db.schema
    .createTable('pos_layouts')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('is_default', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('columns', 'smallint', (c) => c.notNull())
    .addColumn('rows', 'smallint', (c) => c.notNull())
    .addColumn('page_names', sql`text[]`, (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', ts)
    .addColumn('updated_at', 'timestamptz', ts)
    .execute();
  await db.schema.createIndex('pos_layouts_name').on('pos_layouts').expression(sql`location_id, lower(name)`).unique().execute();
  await db.schema.createIndex('pos_layouts_one_default').on('pos_layouts').column('location_id').unique().where(sql.ref('is_default'), '=', true).execute();
  await db.schema
    .createTable('pos_layout_tiles')
    .addColumn('layout_id', 'uuid', (c) => c.notNull().references('pos_layouts.id').onDelete('cascade'))
    .addColumn('page', 'smallint', (c) => c.notNull())
    .addColumn('position', 'smallint', (c) => c.notNull())
    .addColumn('row', 'smallint', (c) => c.notNull())
    .addColumn('column', 'smallint', (c) => c.notNull())
    .addColumn('width', 'smallint', (c) => c.notNull())
    .addColumn('height', 'smallint', (c) => c.notNull())
    .addColumn('item_id', 'uuid', (c) => c.references('items.id').onDelete('cascade'))
    .addColumn('category_id', 'uuid', (c) => c.references('categories.id').onDelete('cascade'))
    .addColumn('label', 'text')
    .addColumn('color', 'text')
    .addPrimaryKeyConstraint('pos_layout_tiles_pkey', ['layout_id', 'page', 'position'])
    .addCheckConstraint('pos_layout_tiles_one_target', sql`num_nonnulls(item_id, category_id) = 1`)
    .execute();
  // The cascades of an item's or a category's delete find their tiles by index.
  await db.schema.createIndex('pos_layout_tiles_item').on('pos_layout_tiles').column('item_id').where(sql.ref('item_id'), 'is not', null).execute();
  await db.schema.createIndex('pos_layout_tiles_category').on('pos_layout_tiles').column('category_id').where(sql.ref('category_id'), 'is not', null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('pos_layout_tiles').ifExists().execute();
  await db.schema.dropTable('pos_layouts').ifExists().execute();
}
