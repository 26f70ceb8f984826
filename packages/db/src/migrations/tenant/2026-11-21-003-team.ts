import { sql, type Kysely } from 'kysely';

/**
 * Team and access (issue "Identity and access", point 4): per-member settings of the merchant
 * (`all_locations`: a "global user" whose access spans every location, including future ones),
 * case-insensitive role names, and indexes the role counts and the activity-log datatable use.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('member_settings')
    .addColumn('user_id', 'uuid', (c) => c.primaryKey())
    .addColumn('all_locations', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('roles_name_ci_unique').on('roles').expression(sql`lower(name)`).unique().execute();
  await db.schema.createIndex('user_roles_role_id').on('user_roles').column('role_id').execute();
  await db.schema.createIndex('activity_logs_newest').on('activity_logs').columns(['created_at desc', 'id desc']).execute();
  await db.schema.createIndex('activity_logs_user_id').on('activity_logs').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('activity_logs_user_id').ifExists().execute();
  await db.schema.dropIndex('activity_logs_newest').ifExists().execute();
  await db.schema.dropIndex('user_roles_role_id').ifExists().execute();
  await db.schema.dropIndex('roles_name_ci_unique').ifExists().execute();
  await db.schema.dropTable('member_settings').ifExists().execute();
}
