import { sql, type Kysely } from 'kysely';

/**
 * Inbound webhooks (spec 3 sections 6-8, issue 13).
 * - `webhook_logs`: the central webhook log. card-b events (type `card_b_webhook`) are upserted on
 *   `webhook_id`, the SHA-256 of the raw body, with an `occurrences` counter (unique partial index
 *   limited to that type); `expires_at` is set for that type only (90 days) and a purge deletes
 *   what has expired.
 * - `webhook_claims`: one row per provider event acted on, so a replay changes nothing.
 * - `commission_ledger`: commission per provider payment; adjustments point at the entry they adjust
 *   and are unique per (entry, source reference), so a reversal replayed adjusts once.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_logs')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('webhook_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('merchant_id', 'uuid', (c) => c.references('merchants.id').onDelete('set null'))
    .addColumn('event_type', 'text')
    .addColumn('event_id', 'text')
    .addColumn('fields', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('payload', 'jsonb')
    .addColumn('raw_body', 'text', (c) => c.notNull())
    .addColumn('occurrences', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('error', 'text')
    .addColumn('expires_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create unique index webhook_logs_card_b_webhook_id on webhook_logs (webhook_id) where type = 'card_b_webhook'`.execute(db);
  await sql`create index webhook_logs_expires_at on webhook_logs (expires_at) where expires_at is not null`.execute(db);
  await db.schema.createIndex('webhook_logs_merchant_created').on('webhook_logs').columns(['merchant_id', 'created_at']).execute();

  await db.schema
    .createTable('webhook_claims')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('claimed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('webhook_claims_pk', ['provider', 'event_id'])
    .execute();

  await db.schema
    .createTable('commission_ledger')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('merchant_id', 'uuid', (c) => c.notNull().references('merchants.id').onDelete('cascade'))
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('source_ref', 'text', (c) => c.notNull())
    .addColumn('is_adjustment', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('adjusts_id', 'uuid', (c) => c.references('commission_ledger.id'))
    .addColumn('commission_amount', 'integer', (c) => c.notNull())
    .addColumn('fee_amount', 'integer')
    .addColumn('reason', 'text')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('recorded'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create unique index commission_ledger_entry on commission_ledger (source, source_ref) where not is_adjustment`.execute(db);
  await sql`create unique index commission_ledger_adjustment on commission_ledger (adjusts_id, source_ref) where is_adjustment`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('commission_ledger').ifExists().execute();
  await db.schema.dropTable('webhook_claims').ifExists().execute();
  await db.schema.dropTable('webhook_logs').ifExists().execute();
}
