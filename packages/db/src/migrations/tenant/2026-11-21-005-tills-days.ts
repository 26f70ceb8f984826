import { sql, type Kysely } from 'kysely';

/** Register part 2: registers, drawer fiscal identity, tills and movements, refunds, business days. */
export async function up(db: Kysely<any>): Promise<void> {
  const now = (c: any) => c.notNull().defaultTo(sql`now()`);

  await db.schema
    .createTable('pos_registers')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('device_id', 'uuid', (c) => c.references('devices.id'))
    .addColumn('drawer_id', 'uuid', (c) => c.references('drawers.id'))
    .addColumn('terminal', 'jsonb')
    .addColumn('retired_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', now)
    .execute();

  // A drawer's fiscal identity is frozen when it is created: renaming it never changes signed data.
  await db.schema.alterTable('drawers').addColumn('fiscal_identity', 'jsonb').execute();
  // Raw SQL would miss the tenant schema; the builder carries it.
  await db.updateTable('drawers').set({ fiscal_identity: sql`jsonb_build_object('drawerId', id::text, 'drawerName', name)` }).where('fiscal_identity', 'is', null).execute();

  await db.schema
    .createTable('pos_tills')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id'))
    .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode in ('register_drawer','staff_wallet')`))
    .addColumn('drawer_id', 'uuid', (c) => c.references('drawers.id'))
    .addColumn('staff_id', 'uuid', (c) => c.notNull().references('staff_credentials.id'))
    .addColumn('device_id', 'uuid', (c) => c.notNull().references('devices.id'))
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('open','ended','closed')`))
    .addColumn('opening_float', 'integer', (c) => c.notNull())
    .addColumn('drawer_snapshot', 'jsonb', (c) => c.notNull())
    .addColumn('opened_at', 'timestamptz', now)
    .addColumn('ended_at', 'timestamptz')
    .addColumn('counted', 'integer')
    .addColumn('expected_at_count', 'integer')
    .addColumn('variance', 'integer')
    .addColumn('variance_level', 'text')
    .addColumn('counted_at', 'timestamptz')
    .addColumn('counted_by', 'uuid')
    .addColumn('closed_at', 'timestamptz')
    .addColumn('closed_by', 'uuid')
    .addColumn('close_approved_by', 'uuid')
    .addColumn('business_day_id', 'uuid')
    .execute();
  // One live till per receptacle: a drawer (register_drawer) or a staff member (staff_wallet).
  await db.schema.createIndex('pos_tills_live_drawer').on('pos_tills').column('drawer_id').unique().where(sql.ref('state'), '<>', 'closed').where(sql.ref('mode'), '=', 'register_drawer').execute();
  await db.schema.createIndex('pos_tills_live_wallet').on('pos_tills').column('staff_id').unique().where(sql.ref('state'), '<>', 'closed').where(sql.ref('mode'), '=', 'staff_wallet').execute();

  await db.schema
    .createTable('pos_till_movements')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('till_id', 'uuid', (c) => c.notNull().references('pos_tills.id'))
    .addColumn('type', 'text', (c) => c.notNull().check(sql`type in ('paid_in','paid_out','drawer_open_no_sale','float_issue','float_return')`))
    .addColumn('amount', 'integer', (c) => c.notNull()) // signed by direction on the server
    .addColumn('reason', 'text')
    .addColumn('staff_id', 'uuid', (c) => c.notNull())
    .addColumn('approved_by', 'uuid')
    .addColumn('journal_id', 'uuid')
    .addColumn('created_at', 'timestamptz', now)
    .execute();

  await db.schema
    .createTable('pos_refunds')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('transaction_id', 'uuid', (c) => c.notNull().references('pos_transactions.id'))
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id'))
    .addColumn('device_id', 'uuid', (c) => c.notNull())
    .addColumn('staff_id', 'uuid', (c) => c.notNull())
    .addColumn('approved_by', 'uuid')
    .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode in ('full','partial')`))
    .addColumn('amount', 'integer', (c) => c.notNull())
    .addColumn('by_vat_rate', 'jsonb', (c) => c.notNull())
    .addColumn('till_id', 'uuid')
    .addColumn('fiscal', 'jsonb')
    .addColumn('business_date', 'date', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', now)
    .execute();
  await db.schema
    .createTable('pos_refund_lines')
    .addColumn('refund_id', 'uuid', (c) => c.notNull().references('pos_refunds.id'))
    .addColumn('transaction_id', 'uuid', (c) => c.notNull())
    .addColumn('line_uuid', 'text', (c) => c.notNull())
    .addColumn('amount', 'integer', (c) => c.notNull())
    // A line cannot be refunded twice.
    .addUniqueConstraint('pos_refund_lines_once', ['transaction_id', 'line_uuid'])
    .execute();

  await db.schema
    .createTable('pos_business_days')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id'))
    .addColumn('business_date', 'date', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('open','closed')`))
    .addColumn('opened_at', 'timestamptz', now)
    .addColumn('closed_at', 'timestamptz')
    .addColumn('closed_by', 'uuid')
    .addColumn('z_report_no', 'integer')
    .addColumn('z_report', 'jsonb')
    .addColumn('journal_id', 'uuid')
    .addUniqueConstraint('pos_business_days_location_date', ['location_id', 'business_date'])
    .addUniqueConstraint('pos_business_days_z_no', ['location_id', 'z_report_no'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['pos_business_days', 'pos_refund_lines', 'pos_refunds', 'pos_till_movements', 'pos_tills', 'pos_registers']) await db.schema.dropTable(t).ifExists().execute();
  await db.schema.alterTable('drawers').dropColumn('fiscal_identity').execute();
}
