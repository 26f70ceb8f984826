import { sql, type Kysely } from 'kysely';

/**
 * Customers and loyalty (issues 12 and 14; issue 16 adds the back office and the customer app on
 * top): customers with normalised contacts unique per merchant (one schema = one merchant), a points
 * program per location, loyalty accounts with a ledger (earn once per transaction), short-lived
 * single-use loyalty tokens stored hashed, the customer timeline, offer and reward redemptions, gift
 * cards (code stored hashed), kiosk push tokens, and the transaction fields the omni-channel stream
 * and the kiosk customer name need.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const ts = (c: any) => c.notNull().defaultTo(sql`now()`);
  await db.schema
    .createTable('customers')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text')
    // Lower-cased e-mail and E.164-like phone (`+` and digits): the forms lookups compare.
    .addColumn('email', 'text')
    .addColumn('phone', 'text')
    .addColumn('marketing_consent', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('created_at', 'timestamptz', ts)
    .addColumn('updated_at', 'timestamptz', ts)
    .execute();
  await db.schema.createIndex('customers_email_unique').on('customers').column('email').unique().where(sql.ref('email'), 'is not', null).execute();
  await db.schema.createIndex('customers_phone_unique').on('customers').column('phone').unique().where(sql.ref('phone'), 'is not', null).execute();

  await db.schema
    .createTable('loyalty_programs')
    .addColumn('location_id', 'uuid', (c) => c.primaryKey().references('locations.id').onDelete('cascade'))
    .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(true))
    // Points per whole euro (major unit) paid, tip excluded.
    .addColumn('points_per_euro', 'integer', (c) => c.notNull().check(sql`points_per_euro between 0 and 1000`))
    .addColumn('created_at', 'timestamptz', ts)
    .addColumn('updated_at', 'timestamptz', ts)
    .execute();
  await db.schema
    .createTable('loyalty_rewards')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('points', 'integer', (c) => c.notNull().check(sql`points > 0`))
    // Cents off the basket when redeemed (priced by the one pricing function as an amount offer).
    .addColumn('discount', 'integer', (c) => c.notNull().check(sql`discount > 0`))
    .addColumn('active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('created_at', 'timestamptz', ts)
    .execute();
  await db.schema
    .createTable('loyalty_accounts')
    .addColumn('customer_id', 'uuid', (c) => c.primaryKey().references('customers.id').onDelete('cascade'))
    // Kept equal to the sum of the ledger: both are written in one transaction under the row lock.
    .addColumn('points', 'integer', (c) => c.notNull().defaultTo(0).check(sql`points >= 0`))
    .addColumn('lifetime_points', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', 'timestamptz', ts)
    .execute();
  await db.schema
    .createTable('loyalty_ledger')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('customer_id', 'uuid', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('earn', 'redeem', 'adjust')`))
    .addColumn('points', 'integer', (c) => c.notNull())
    .addColumn('balance_after', 'integer', (c) => c.notNull())
    .addColumn('transaction_id', 'uuid')
    .addColumn('reward_id', 'uuid')
    .addColumn('created_at', 'timestamptz', ts)
    .execute();
  // Earn once per transaction; a reward redeemed once per transaction.
  await db.schema.createIndex('loyalty_ledger_earn_once').on('loyalty_ledger').column('transaction_id').unique().where(sql.ref('kind'), '=', 'earn').execute();
  await db.schema.createIndex('loyalty_ledger_redeem_once').on('loyalty_ledger').columns(['transaction_id', 'reward_id']).unique().where(sql.ref('kind'), '=', 'redeem').execute();
  await db.schema.createIndex('loyalty_ledger_customer').on('loyalty_ledger').columns(['customer_id', 'created_at']).execute();

  await db.schema
    .createTable('loyalty_tokens')
    // SHA-256 of the token (hex): the token itself is never stored.
    .addColumn('token_hash', 'text', (c) => c.primaryKey())
    .addColumn('customer_id', 'uuid', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('device_id', 'uuid', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', ts)
    .execute();

  await db.schema
    .createTable('customer_timeline')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('customer_id', 'uuid', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('transaction_id', 'uuid')
    .addColumn('detail', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', ts)
    .execute();
  await db.schema.createIndex('customer_timeline_once').on('customer_timeline').columns(['customer_id', 'kind', 'transaction_id']).unique().where(sql.ref('transaction_id'), 'is not', null).execute();
  await db.schema.createIndex('customer_timeline_customer').on('customer_timeline').columns(['customer_id', 'created_at']).execute();

  await db.schema
    .createTable('offer_redemptions')
    .addColumn('offer_id', 'uuid', (c) => c.notNull())
    .addColumn('transaction_id', 'uuid', (c) => c.notNull().references('transactions.id').onDelete('cascade'))
    .addColumn('customer_id', 'uuid')
    .addColumn('discount', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', ts)
    .addPrimaryKeyConstraint('offer_redemptions_pk', ['offer_id', 'transaction_id'])
    .execute();

  await db.schema
    .createTable('gift_cards')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    // SHA-256 (hex) of the normalised code; the code is shown once, at issue.
    .addColumn('code_hash', 'text', (c) => c.notNull().unique())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('balance', 'integer', (c) => c.notNull().check(sql`balance >= 0`))
    .addColumn('initial_balance', 'integer', (c) => c.notNull())
    .addColumn('customer_id', 'uuid', (c) => c.references('customers.id').onDelete('set null'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active').check(sql`status in ('active', 'disabled')`))
    .addColumn('expires_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', ts)
    .execute();

  await db.schema
    .createTable('kiosk_push_tokens')
    .addColumn('device_id', 'uuid', (c) => c.primaryKey().references('devices.id').onDelete('cascade'))
    .addColumn('platform', 'text', (c) => c.notNull())
    .addColumn('token', 'text', (c) => c.notNull())
    .addColumn('app_version', 'text')
    .addColumn('updated_at', 'timestamptz', ts)
    .execute();

  await db.schema.alterTable('transactions').addColumn('customer_name', 'text').execute();
  await db.schema.alterTable('transactions').addColumn('dining_option', 'text').execute();
  // A later pickup or delivery time (online ordering); null = as soon as possible.
  await db.schema.alterTable('transactions').addColumn('scheduled_for', 'timestamptz').execute();
  await db.schema.createIndex('transactions_location_status_created').on('transactions').columns(['location_id', 'status', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('transactions_location_status_created').ifExists().execute();
  for (const c of ['scheduled_for', 'dining_option', 'customer_name']) await db.schema.alterTable('transactions').dropColumn(c).execute();
  for (const t of ['kiosk_push_tokens', 'gift_cards', 'offer_redemptions', 'customer_timeline', 'loyalty_tokens', 'loyalty_ledger', 'loyalty_accounts', 'loyalty_rewards', 'loyalty_programs', 'customers']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
