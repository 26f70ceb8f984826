import { sql, type Kysely } from 'kysely';

/**
 * Payments (spec 3 "Transaction"): transactions of the kiosk and online channels, their lines (item
 * snapshot with modifiers, VAT per rate), per-location counters for order and receipt numbers, the
 * terminals a device pays on and the location's payment settings.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const ts = (c: any) => c.notNull().defaultTo(sql`now()`);
  const cents = (c: any) => c.notNull().defaultTo(0);
  await db.schema
    .createTable('transactions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id'))
    .addColumn('device_id', 'uuid', (c) => c.references('devices.id'))
    .addColumn('channel', 'text', (c) => c.notNull().check(sql`channel in ('kiosk','online_ordering','table_qr')`))
    .addColumn('order_no', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('Pending','Awaiting Payment','Awaiting Capture','Awaiting Invoice','Complete','Unpaid','Cancelled')`),
    )
    .addColumn('order_status', 'text')
    .addColumn('payment_provider', 'text', (c) => c.notNull().check(sql`payment_provider in ('card-a','card-b','platform-a')`))
    .addColumn('payment_snapshot', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('idempotency_key', 'text', (c) => c.notNull().unique())
    .addColumn('all_idempotency_keys', sql`text[]`, (c) => c.notNull())
    .addColumn('invalid_idempotency_keys', sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn('receipt_no', 'integer')
    .addColumn('subtotal', 'integer', cents)
    .addColumn('discount', 'integer', cents)
    .addColumn('vat', 'integer', cents)
    .addColumn('fees', 'integer', cents)
    .addColumn('tip_amount', 'integer', cents)
    .addColumn('total', 'integer', (c) => c.notNull().check(sql`total >= 0`))
    .addColumn('by_vat_rate', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('offers', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('menu_version', 'integer')
    .addColumn('is_free', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('auto_success', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('is_test', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('customer_id', 'uuid')
    .addColumn('loyalty_token', 'text')
    .addColumn('cart_session_id', 'text')
    .addColumn('completed_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', ts)
    .addColumn('updated_at', 'timestamptz', ts)
    .addCheckConstraint('transactions_money_non_negative', sql`subtotal >= 0 and discount >= 0 and vat >= 0 and fees >= 0 and tip_amount >= 0`)
    .addCheckConstraint('transactions_complete_has_receipt', sql`(status = 'Complete') = (receipt_no is not null)`)
    .execute();
  await db.schema.createIndex('transactions_location_order_no').on('transactions').columns(['location_id', 'order_no']).unique().execute();
  await db.schema.createIndex('transactions_location_receipt_no').on('transactions').columns(['location_id', 'receipt_no']).unique().execute();
  await db.schema.createIndex('transactions_location_created').on('transactions').columns(['location_id', 'created_at']).execute();
  await db.schema.createIndex('transactions_all_keys').on('transactions').using('gin').column('all_idempotency_keys').execute();

  await db.schema
    .createTable('transaction_lines')
    .addColumn('transaction_id', 'uuid', (c) => c.notNull().references('transactions.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('item_id', 'uuid', (c) => c.notNull())
    .addColumn('category_id', 'uuid')
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('qty', 'integer', (c) => c.notNull().check(sql`qty > 0`))
    .addColumn('unit_price', 'integer', (c) => c.notNull())
    .addColumn('vat_rate', sql`numeric(5,2)`, (c) => c.notNull())
    .addColumn('gross', 'integer', (c) => c.notNull())
    .addColumn('discount', 'integer', (c) => c.notNull())
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('modifiers', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('variant', 'jsonb')
    .addPrimaryKeyConstraint('transaction_lines_pk', ['transaction_id', 'position'])
    .execute();

  // Order and receipt numbers: one counter row per (name, location), taken with UPDATE ... RETURNING.
  await db.schema
    .createTable('transaction_counters')
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull().check(sql`name in ('order_no','receipt_no')`))
    .addColumn('value', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('transaction_counters_pk', ['location_id', 'name'])
    .execute();

  await db.schema.alterTable('devices').addColumn('card_b_terminal_id', 'text').execute();
  await db.schema.alterTable('devices').addColumn('card_a_reader_id', 'text').execute();
  await db.schema.alterTable('devices').addColumn('platform_a_device_id', 'text').execute();
  // { in_person_provider?: 'card-a'|..., platform_a?: { active: boolean, location_id: string } }
  await db.schema.alterTable('locations').addColumn('payment_settings', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('locations').dropColumn('payment_settings').execute();
  for (const col of ['platform_a_device_id', 'card_a_reader_id', 'card_b_terminal_id']) await db.schema.alterTable('devices').dropColumn(col).execute();
  await db.schema.dropTable('transaction_counters').ifExists().execute();
  await db.schema.dropTable('transaction_lines').ifExists().execute();
  await db.schema.dropTable('transactions').ifExists().execute();
}
