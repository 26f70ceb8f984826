import { sql, type Kysely } from 'kysely';

/** The first-party register: staff sessions, orders, sales, fiscal counters and the hash-chained journal. */
export async function up(db: Kysely<any>): Promise<void> {
  const now = (c: any) => c.notNull().defaultTo(sql`now()`);

  await db.schema
    .createTable('pos_staff_sessions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('staff_id', 'uuid', (c) => c.notNull().references('staff_credentials.id'))
    .addColumn('device_id', 'uuid', (c) => c.notNull().references('devices.id'))
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', now)
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('ended_at', 'timestamptz')
    .execute();

  await db.schema
    .createTable('pos_orders')
    .addColumn('id', 'uuid', (c) => c.primaryKey()) // the client's UUID v4
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id'))
    .addColumn('device_id', 'uuid', (c) => c.notNull().references('devices.id'))
    .addColumn('staff_id', 'uuid', (c) => c.references('staff_credentials.id'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('OPEN','SETTLING','SETTLED','VOIDED')`))
    .addColumn('fired', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('order_profile', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('table_number', 'text')
    .addColumn('lines', 'jsonb', (c) => c.notNull())
    .addColumn('totals', 'jsonb', (c) => c.notNull())
    .addColumn('tender', 'jsonb')
    .addColumn('fiscal', 'jsonb')
    .addColumn('transaction_id', 'uuid')
    .addColumn('created_at', 'timestamptz', now)
    .addColumn('updated_at', 'timestamptz', now)
    .addColumn('fired_at', 'timestamptz')
    .addColumn('settled_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('pos_orders_location_state').on('pos_orders').columns(['location_id', 'state', 'updated_at']).execute();

  // One row per settled sale: the transaction a refund names. payment_snapshot is what the payment
  // side recorded; refunds compare it with the order's frozen tender.
  await db.schema
    .createTable('pos_transactions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('order_id', 'uuid', (c) => c.notNull().unique().references('pos_orders.id'))
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id'))
    .addColumn('device_id', 'uuid', (c) => c.notNull())
    .addColumn('staff_id', 'uuid')
    .addColumn('total', 'integer', (c) => c.notNull())
    .addColumn('tender', 'jsonb', (c) => c.notNull())
    .addColumn('payment_snapshot', 'jsonb', (c) => c.notNull())
    .addColumn('captured_by_platform', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('fiscal', 'jsonb')
    .addColumn('business_date', 'date', (c) => c.notNull())
    .addColumn('till_id', 'uuid')
    .addColumn('created_at', 'timestamptz', now)
    .execute();
  await db.schema.createIndex('pos_transactions_location_day').on('pos_transactions').columns(['location_id', 'business_date']).execute();

  // Counters per fiscal device and event label; `total` is the label for the total counter.
  await db.schema
    .createTable('fiscal_counters')
    .addColumn('fdm_id', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    .addColumn('value', 'bigint', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('fiscal_counters_pk', ['fdm_id', 'label'])
    .execute();

  await db.schema
    .createTable('fiscal_journal')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('fdm_id', 'text', (c) => c.notNull())
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id'))
    .addColumn('seq', 'bigint', (c) => c.notNull())
    .addColumn('event_kind', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull()) // canonical JSON text, hashed as stored
    .addColumn('sign_result', 'text')
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending','signed','failed')`))
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull())
    .addColumn('result_hash', 'text')
    .addColumn('subject_type', 'text')
    .addColumn('subject_id', 'text')
    .addColumn('created_at', 'timestamptz', now)
    .addColumn('completed_at', 'timestamptz')
    .addUniqueConstraint('fiscal_journal_fdm_seq', ['fdm_id', 'seq'])
    .execute();
  await db.schema.createIndex('fiscal_journal_location').on('fiscal_journal').columns(['location_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['fiscal_journal', 'fiscal_counters', 'pos_transactions', 'pos_orders', 'pos_staff_sessions']) await db.schema.dropTable(t).ifExists().execute();
}
