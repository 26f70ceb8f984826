import { sql, type Kysely } from 'kysely';

/**
 * The back-office catalog (issue 11): categories, richer items, modifier groups and modifiers, variant
 * groups, nested display groups, menu lifecycle columns, the published catalog (one row per location,
 * swapped atomically on publish), offers and custom tax rates. Runs on a tenant-bound Kysely.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const ts = (c: any) => c.notNull().defaultTo(sql`now()`);

  await db.schema.alterTable('tax_rates').addColumn('is_custom', 'boolean', (c) => c.notNull().defaultTo(false)).execute();
  await db.schema.alterTable('tax_rates').addColumn('created_at', 'timestamptz', ts).execute();

  await db.schema
    .createTable('categories')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', ts)
    .addColumn('updated_at', 'timestamptz', ts)
    .execute();
  await db.schema.createIndex('categories_name_unique').on('categories').expression(sql`lower(name)`).unique().execute();

  await db.schema
    .alterTable('items')
    .addColumn('description', 'text')
    .addColumn('category_id', 'uuid', (c) => c.references('categories.id').onDelete('set null'))
    .addColumn('sku', 'text')
    .addColumn('allergens', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('dietary', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('channels', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{pos,kiosk,online_ordering,qr_ordering,delivery}'::text[]`))
    .addColumn('location_ids', sql`uuid[]`)
    .addColumn('visible', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('allow_negative_stock', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('updated_at', 'timestamptz', ts)
    .execute();
  await db.schema.createIndex('items_category_idx').on('items').column('category_id').execute();

  await db.schema
    .createTable('modifier_groups')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('min_select', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('max_select', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', ts)
    .addColumn('updated_at', 'timestamptz', ts)
    .addCheckConstraint('modifier_groups_min_max', sql`min_select >= 0 and max_select >= 1 and min_select <= max_select`)
    .execute();
  await db.schema
    .createTable('modifiers')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('modifier_group_id', 'uuid', (c) => c.notNull().references('modifier_groups.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('price', 'integer', (c) => c.notNull().check(sql`price >= 0`))
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('modifiers_group_idx').on('modifiers').column('modifier_group_id').execute();
  await db.schema
    .createTable('item_modifier_groups')
    .addColumn('item_id', 'uuid', (c) => c.notNull().references('items.id').onDelete('cascade'))
    .addColumn('modifier_group_id', 'uuid', (c) => c.notNull().references('modifier_groups.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('item_modifier_groups_pk', ['item_id', 'modifier_group_id'])
    .execute();

  await db.schema
    .createTable('variant_groups')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('item_id', 'uuid', (c) => c.notNull().references('items.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', ts)
    .addColumn('updated_at', 'timestamptz', ts)
    .execute();
  await db.schema
    .createTable('variants')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('variant_group_id', 'uuid', (c) => c.notNull().references('variant_groups.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('unit_price', 'integer', (c) => c.notNull().check(sql`unit_price >= 0`))
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .alterTable('menus')
    .addColumn('channels', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{pos,kiosk,online_ordering,qr_ordering,delivery}'::text[]`))
    .addColumn('draft', 'jsonb')
    .addColumn('published_at', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', ts)
    .execute();
  await db.schema
    .alterTable('display_groups')
    .addColumn('parent_id', 'uuid', (c) => c.references('display_groups.id').onDelete('cascade'))
    .execute();
  await db.schema.createIndex('display_groups_menu_idx').on('display_groups').column('menu_id').execute();
  await db.schema.createIndex('display_group_items_item_idx').on('display_group_items').column('item_id').execute();

  // What channels read: one row per location, replaced in the publishing transaction. The row stays
  // when the menu is withdrawn (menu_id and payload null) so `version` only ever grows per location.
  await db.schema
    .createTable('published_catalogs')
    .addColumn('location_id', 'uuid', (c) => c.primaryKey().references('locations.id').onDelete('cascade'))
    .addColumn('menu_id', 'uuid', (c) => c.references('menus.id').onDelete('set null'))
    .addColumn('version', 'bigint', (c) => c.notNull())
    .addColumn('payload', 'jsonb')
    .addColumn('published_at', 'timestamptz', ts)
    .execute();

  await db.schema
    .createTable('offers')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('inactive').check(sql`status in ('inactive','active','archived')`))
    .addColumn('rule', 'jsonb', (c) => c.notNull())
    .addColumn('item_ids', sql`uuid[]`, (c) => c.notNull().defaultTo(sql`'{}'::uuid[]`))
    .addColumn('category_ids', sql`uuid[]`, (c) => c.notNull().defaultTo(sql`'{}'::uuid[]`))
    .addColumn('min_basket', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('channels', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('location_ids', sql`uuid[]`)
    .addColumn('schedule', 'jsonb')
    .addColumn('position', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'timestamptz', ts)
    .addColumn('updated_at', 'timestamptz', ts)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['offers', 'published_catalogs', 'variants', 'variant_groups', 'item_modifier_groups', 'modifiers', 'modifier_groups']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
  await db.schema.alterTable('display_groups').dropColumn('parent_id').execute();
  for (const c of ['channels', 'draft', 'published_at', 'updated_at']) await db.schema.alterTable('menus').dropColumn(c).execute();
  for (const c of ['description', 'category_id', 'sku', 'allergens', 'dietary', 'channels', 'location_ids', 'visible', 'allow_negative_stock', 'updated_at']) {
    await db.schema.alterTable('items').dropColumn(c).execute();
  }
  await db.schema.dropTable('categories').ifExists().execute();
  await db.schema.alterTable('tax_rates').dropColumn('is_custom').dropColumn('created_at').execute();
}
