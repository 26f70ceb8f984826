import { sql, type Kysely } from 'kysely';

/**
 * Integration connections (issue 13 item 5; issue 17 extends them).
 * - `integration_connections`: one merchant's account at a provider (marketplace store, shop, register
 *   account), keyed by the provider's own reference (`external_ref`: store id, shop name, account id;
 *   unique per provider) and optionally a group reference (`external_group_ref`: the register-a company).
 *   Webhooks resolve their tenant here; OAuth callbacks write here. Tokens and the per-merchant webhook
 *   key (register-a's applicationId) are stored encrypted (AES-256-GCM, `INTEGRATION_TOKEN_KEY`).
 * - `integration_events`: what a verified marketplace or register webhook asked for (an order event, a
 *   cancel, a catalog change), recorded once per provider event for the import and sync jobs of the
 *   integrations issue to work through (`status` `pending` until they do).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('integration_connections')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('external_ref', 'text', (c) => c.notNull().check(sql`char_length(external_ref) between 1 and 200`))
    .addColumn('external_group_ref', 'text', (c) => c.check(sql`char_length(external_group_ref) <= 200`))
    .addColumn('merchant_id', 'uuid', (c) => c.notNull().references('merchants.id').onDelete('cascade'))
    .addColumn('location_id', 'uuid')
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('active'))
    .addColumn('webhook_key_encrypted', 'text')
    .addColumn('access_token_encrypted', 'text')
    .addColumn('refresh_token_encrypted', 'text')
    .addColumn('token_expires_at', 'timestamptz')
    .addColumn('scopes', 'text')
    .addColumn('settings', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('menu_sync_requested_at', 'timestamptz')
    .addColumn('last_event_at', 'timestamptz')
    .addColumn('connected_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('integration_connections_provider_ref', ['provider', 'external_ref'])
    .execute();
  await db.schema.createIndex('integration_connections_merchant').on('integration_connections').columns(['merchant_id', 'provider']).execute();
  await sql`create index integration_connections_group on integration_connections (provider, external_group_ref) where external_group_ref is not null`.execute(db);

  await db.schema
    .createTable('integration_events')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('connection_id', 'uuid', (c) => c.notNull().references('integration_connections.id').onDelete('cascade'))
    .addColumn('merchant_id', 'uuid', (c) => c.notNull().references('merchants.id').onDelete('cascade'))
    .addColumn('location_id', 'uuid')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('external_id', 'text', (c) => c.check(sql`char_length(external_id) <= 200`))
    .addColumn('webhook_log_id', 'uuid', (c) => c.references('webhook_logs.id').onDelete('set null'))
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('integration_events_provider_event', ['provider', 'event_id', 'connection_id'])
    .execute();
  await db.schema.createIndex('integration_events_pending').on('integration_events').columns(['connection_id', 'status', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('integration_events').ifExists().execute();
  await db.schema.dropTable('integration_connections').ifExists().execute();
}
