import { sql, type Kysely } from 'kysely';

/**
 * Customer accounts (issue 16 items 4-7): one-time login codes stored hashed, the identity-provider
 * subject a customer signed in with, customer addresses (one default), back-office notes.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const ts = (c: any) => c.notNull().defaultTo(sql`now()`);
  await db.schema
    .createTable('customer_otps')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('channel', 'text', (c) => c.notNull().check(sql`channel in ('sms', 'email')`))
    // The normalised phone or e-mail the code was sent to.
    .addColumn('destination', 'text', (c) => c.notNull())
    // SHA-256 (hex) of destination + code: the code itself is never stored.
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', ts)
    .execute();
  await db.schema.createIndex('customer_otps_destination').on('customer_otps').columns(['destination', 'created_at']).execute();
  await db.schema.alterTable('customers').addColumn('idp_subject', 'text').execute();
  await db.schema.createIndex('customers_idp_subject_unique').on('customers').column('idp_subject').unique().where(sql.ref('idp_subject'), 'is not', null).execute();
  await db.schema
    .createTable('customer_addresses')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('customer_id', 'uuid', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('label', 'text')
    .addColumn('line1', 'text', (c) => c.notNull())
    .addColumn('line2', 'text')
    .addColumn('postal_code', 'text', (c) => c.notNull())
    .addColumn('city', 'text', (c) => c.notNull())
    .addColumn('country', 'text', (c) => c.notNull())
    .addColumn('is_default', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', ts)
    .execute();
  await db.schema.createIndex('customer_addresses_one_default').on('customer_addresses').column('customer_id').unique().where(sql.ref('is_default'), '=', true).execute();
  await db.schema
    .createTable('customer_notes')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('customer_id', 'uuid', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('user_id', 'uuid')
    .addColumn('note', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', ts)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['customer_notes', 'customer_addresses', 'customer_otps']) await db.schema.dropTable(t).ifExists().execute();
  await db.schema.dropIndex('customers_idp_subject_unique').ifExists().execute();
  await db.schema.alterTable('customers').dropColumn('idp_subject').execute();
}
