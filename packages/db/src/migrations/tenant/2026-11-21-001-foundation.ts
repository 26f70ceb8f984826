import { sql, type Kysely } from 'kysely';

/** Runs against a Kysely bound to the tenant's schema (`withSchema`), so tables land there. */
export async function up(db: Kysely<any>): Promise<void> {
  const ts = (c: any) => c.notNull().defaultTo(sql`now()`);
  await db.schema
    .createTable('locations')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('timezone', 'text', (c) => c.notNull())
    .addColumn('address', 'text')
    .addColumn('country', 'text', (c) => c.notNull().defaultTo('BE'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('vat_no', 'text')
    .addColumn('est_no', 'text')
    .addColumn('pos_tenders', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', ts)
    .execute();

  await db.schema
    .createTable('devices')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id'))
    .addColumn('type', 'text', (c) => c.notNull().check(sql`type in ('pos','kiosk','kds','printer')`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('device_profile_id', 'uuid')
    .addColumn('subscription_active_until', 'timestamptz')
    .addColumn('activated_at', 'timestamptz')
    .addColumn('last_seen_at', 'timestamptz')
    .addColumn('network_info', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('deleted_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', ts)
    .execute();

  await db.schema
    .createTable('roles')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull().unique())
    .addColumn('is_owner', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('permissions', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('created_at', 'timestamptz', ts)
    .execute();
  await db.schema
    .createTable('user_roles')
    .addColumn('user_id', 'uuid', (c) => c.notNull())
    .addColumn('role_id', 'uuid', (c) => c.notNull().references('roles.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('user_roles_pk', ['user_id', 'role_id'])
    .execute();
  await db.schema
    .createTable('user_locations')
    .addColumn('user_id', 'uuid', (c) => c.notNull())
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id').onDelete('cascade'))
    .addPrimaryKeyConstraint('user_locations_pk', ['user_id', 'location_id'])
    .execute();

  await db.schema
    .createTable('staff_credentials')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('pin_hash', 'text', (c) => c.notNull())
    .addColumn('pin_fingerprint', 'text', (c) => c.notNull())
    .addColumn('permissions', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('user_id', 'uuid')
    .addColumn('deleted_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', ts)
    .execute();
  // PINs are unique within a merchant among live credentials.
  await db.schema.createIndex('staff_credentials_pin_unique').on('staff_credentials').column('pin_fingerprint').unique().where(sql.ref('deleted_at'), 'is', null).execute();

  await db.schema
    .createTable('tax_rates')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('rate', 'integer', (c) => c.notNull())
    .addColumn('country', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('items')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('unit_price', 'integer', (c) => c.notNull().check(sql`unit_price >= 0`))
    .addColumn('vat_rate', 'integer', (c) => c.notNull())
    .addColumn('category', 'text')
    .addColumn('created_at', 'timestamptz', ts)
    .execute();
  await db.schema
    .createTable('menus')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('draft','published','archived')`))
    .addColumn('created_at', 'timestamptz', ts)
    .execute();
  await db.schema
    .createTable('display_groups')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('menu_id', 'uuid', (c) => c.notNull().references('menus.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('display_group_items')
    .addColumn('display_group_id', 'uuid', (c) => c.notNull().references('display_groups.id').onDelete('cascade'))
    .addColumn('item_id', 'uuid', (c) => c.notNull().references('items.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('display_group_items_pk', ['display_group_id', 'item_id'])
    .execute();

  await db.schema
    .createTable('drawers')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('physical','virtual')`))
    .addColumn('retired_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', ts)
    .execute();

  await db.schema
    .createTable('fdm_devices')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id'))
    .addColumn('fdm_id', 'text', (c) => c.notNull().unique())
    .addColumn('regime', 'text', (c) => c.notNull().defaultTo('gks'))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('active','retired')`))
    .addColumn('mode', 'text', (c) => c.notNull().defaultTo('software'))
    .addColumn('created_at', 'timestamptz', ts)
    .addColumn('retired_at', 'timestamptz')
    .execute();

  await db.schema
    .createTable('activity_logs')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text')
    .addColumn('properties', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', ts)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['activity_logs', 'fdm_devices', 'drawers', 'display_group_items', 'display_groups', 'menus', 'items', 'tax_rates', 'staff_credentials', 'user_locations', 'user_roles', 'roles', 'devices', 'locations']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
