import { sql, type Kysely } from 'kysely';

/**
 * Receipt printers (issue 15): the printers devices discovered on the LAN (one per MAC per merchant),
 * their pairing sessions, printer profiles, and the print-job queue the poll service hands out.
 * The printer token itself lives centrally (`printer_tokens`), since the token selects the tenant.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const ts = (c: any) => c.notNull().defaultTo(sql`now()`);
  await db.schema
    .createTable('printer_profiles')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('settings', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', ts)
    .addColumn('updated_at', 'timestamptz', ts)
    .execute();
  await db.schema
    .createTable('printers')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('location_id', 'uuid', (c) => c.notNull().references('locations.id').onDelete('cascade'))
    .addColumn('mac', 'text', (c) => c.notNull().unique())
    .addColumn('ip', 'text')
    .addColumn('model', 'text')
    .addColumn('device_name', 'text')
    .addColumn('serial', 'text')
    .addColumn('paper_width_mm', 'integer')
    .addColumn('mac_source', 'text', (c) => c.notNull().defaultTo('ipp-uuid'))
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('unconfigured').check(sql`state in ('unconfigured','configured','paired','retired')`))
    .addColumn('name', 'text')
    .addColumn('role', 'text', (c) => c.notNull().defaultTo('receipt').check(sql`role in ('receipt','kitchen')`))
    .addColumn('station_id', 'uuid', (c) => c.references('kitchen_stations.id').onDelete('set null'))
    .addColumn('printer_profile_id', 'uuid', (c) => c.references('printer_profiles.id').onDelete('set null'))
    .addColumn('poll_interval_seconds', 'integer', (c) => c.notNull().defaultTo(5))
    .addColumn('token_issued_at', 'timestamptz')
    .addColumn('last_poll_at', 'timestamptz')
    .addColumn('first_reported_by', 'uuid')
    .addColumn('last_reported_at', 'timestamptz', ts)
    .addColumn('retired_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', ts)
    .addColumn('updated_at', 'timestamptz', ts)
    .execute();
  await db.schema.createIndex('printers_location_state').on('printers').columns(['location_id', 'state']).execute();
  await db.schema
    .createTable('printer_pairing_sessions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('printer_id', 'uuid', (c) => c.notNull().references('printers.id').onDelete('cascade'))
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('started_by', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('written_at', 'timestamptz')
    .addColumn('paired_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', ts)
    .execute();
  await db.schema.createIndex('printer_pairing_sessions_printer').on('printer_pairing_sessions').columns(['printer_id', 'created_at']).execute();
  await db.schema
    .createTable('print_jobs')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    // Order of printing per printer, and the printer-visible job id (`J<seq>`).
    .addColumn('seq', 'bigserial', (c) => c.notNull().unique())
    .addColumn('printer_id', 'uuid', (c) => c.notNull().references('printers.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    // What caused the job (`sale:<id>`, `ticket:<id>`...): the same event never queues twice.
    .addColumn('source_key', 'text')
    .addColumn('document', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().defaultTo('queued').check(sql`state in ('queued','leased','printed','failed','cancelled')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_until', 'timestamptz')
    .addColumn('last_code', 'text')
    .addColumn('created_at', 'timestamptz', ts)
    .addColumn('printed_at', 'timestamptz')
    .addColumn('finished_at', 'timestamptz')
    .addUniqueConstraint('print_jobs_once', ['printer_id', 'source_key'])
    .execute();
  await db.schema.createIndex('print_jobs_pending').on('print_jobs').columns(['printer_id', 'seq']).where(sql<boolean>`state in ('queued', 'leased')`).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['print_jobs', 'printer_pairing_sessions', 'printers', 'printer_profiles']) await db.schema.dropTable(t).ifExists().execute();
}
