import { sql } from 'kysely';
import type { CentralDb } from '@pos/db';
import { isUuid } from '@pos/domain/ids';

/** A merchant and its tenant schema, resolved from a webhook: never guessed. */
export interface WebhookTenant {
  readonly merchantId: string;
  readonly tenantDatabase: string;
  readonly locationId: string;
}


/** Merchants whose tenant schema exists (a merchant being created or removed has none yet or any more). */
async function merchants(db: CentralDb) {
  const r = await sql<{ id: string; tenant_database: string }>`
    select m.id, m.tenant_database from merchants m join pg_namespace n on n.nspname = m.tenant_database order by m.created_at`.execute(db);
  return r.rows;
}

/**
 * The tenant holding a location id. Locations live in the tenant schemas; ids are UUIDs, so at most
 * one schema holds one. The schemas are asked in one statement (see docs/decisions.md, "Webhooks").
 */
export async function tenantOfLocation(db: CentralDb, locationId: string): Promise<WebhookTenant | null> {
  if (!isUuid(locationId)) return null;
  return findOne(db, (schema) => sql`select id::text as location_id from ${sql.id(schema)}.locations where id = ${locationId}::uuid`);
}

/** The tenant of a location whose card-b physical source code is `code` (`payment_settings.card_b.source_code`). */
export async function tenantOfCardBSourceCode(db: CentralDb, code: string): Promise<WebhookTenant | null> {
  if (!code || code.length > 100) return null;
  return findOne(db, (schema) => sql`select id::text as location_id from ${sql.id(schema)}.locations where payment_settings->'card_b'->>'source_code' = ${code}`);
}

/** The tenant of a device id (card-a reader: `devices.card_a_reader_id`). */
export async function tenantOfCardAReader(db: CentralDb, readerId: string): Promise<WebhookTenant | null> {
  if (!readerId || readerId.length > 200) return null;
  return findOne(db, (schema) => sql`select location_id::text as location_id from ${sql.id(schema)}.devices where card_a_reader_id = ${readerId} and deleted_at is null`);
}

async function findOne(db: CentralDb, query: (schema: string) => ReturnType<typeof sql>): Promise<WebhookTenant | null> {
  const list = await merchants(db);
  if (!list.length) return null;
  type Hit = { merchant_id: string; tenant_database: string; location_id: string };
  const part = (m: { id: string; tenant_database: string }) => sql`select ${m.id}::text as merchant_id, ${m.tenant_database}::text as tenant_database, q.location_id from (${query(m.tenant_database)}) q`;
  let rows: Hit[];
  try {
    rows = (await sql<Hit>`${sql.join(list.map(part), sql` union all `)} limit 2`.execute(db)).rows;
  } catch (e) {
    // A schema removed (or not yet migrated) between the listing and the query: ask each schema on its
    // own and skip the ones that cannot answer, so one merchant never blocks another's webhooks.
    if (!isMissingRelation(e)) throw e;
    rows = [];
    for (const m of list) {
      const hit = await sql<Hit>`${part(m)} limit 2`.execute(db).then((r) => r.rows, (err: unknown) => {
        if (isMissingRelation(err)) return [];
        throw err;
      });
      rows.push(...hit);
      if (rows.length > 1) break;
    }
  }
  const r = { rows };
  // Two tenants claiming the same reference is ambiguous: not resolved rather than guessed.
  if (r.rows.length !== 1) return null;
  const row = r.rows[0]!;
  return { merchantId: row.merchant_id, tenantDatabase: row.tenant_database, locationId: row.location_id };
}

/** The tenant of a platform-a location reference (`payment_settings.platform_a.location_id`). */
export async function tenantOfPlatformALocation(db: CentralDb, ref: string): Promise<WebhookTenant | null> {
  if (!ref || ref.length > 200) return null;
  return findOne(db, (schema) => sql`select id::text as location_id from ${sql.id(schema)}.locations where payment_settings->'platform_a'->>'location_id' = ${ref}`);
}

/** The tenant of a platform-a merchant reference (`payment_settings.platform_a.merchant_id`). */
export async function tenantOfPlatformAMerchant(db: CentralDb, ref: string): Promise<WebhookTenant | null> {
  if (!ref || ref.length > 200) return null;
  return findOne(db, (schema) => sql`select id::text as location_id from ${sql.id(schema)}.locations where payment_settings->'platform_a'->>'merchant_id' = ${ref}`);
}

/** The tenant of a platform-a terminal device (`devices.platform_a_device_id`). */
export async function tenantOfPlatformADevice(db: CentralDb, deviceId: string): Promise<WebhookTenant | null> {
  if (!deviceId || deviceId.length > 200) return null;
  return findOne(db, (schema) => sql`select location_id::text as location_id from ${sql.id(schema)}.devices where platform_a_device_id = ${deviceId} and deleted_at is null`);
}

/** undefined_table, undefined_column, invalid_schema_name: a schema that is not (or no longer) complete. */
export function isMissingRelation(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return code === '42P01' || code === '42703' || code === '3F000';
}

/** The tenant holding a local card-a subscription record (`billing_subscriptions`). */
export async function tenantOfCardASubscription(db: CentralDb, subscriptionId: string): Promise<WebhookTenant | null> {
  if (!subscriptionId || subscriptionId.length > 200) return null;
  return findOne(db, (schema) => sql`select location_id::text as location_id from ${sql.id(schema)}.billing_subscriptions where provider_subscription_id = ${subscriptionId}`);
}

/** The tenant whose card-a subscriptions belong to `customerId` (one location is enough to name the tenant). */
export async function tenantOfCardACustomer(db: CentralDb, customerId: string): Promise<WebhookTenant | null> {
  if (!customerId || customerId.length > 200) return null;
  return findOne(db, (schema) => sql`select location_id::text as location_id from ${sql.id(schema)}.billing_subscriptions where customer_id = ${customerId} order by created_at desc limit 1`);
}

/** A merchant and its tenant schema, for an event about no location (a connected account, a billing customer). */
export interface WebhookMerchant {
  readonly merchantId: string;
  readonly tenantDatabase: string;
}

/** The tenant of a record that names no location: the same one-statement search, its `location_id` slot left null. */
async function findMerchant(db: CentralDb, query: (schema: string) => ReturnType<typeof sql>): Promise<WebhookMerchant | null> {
  const t = await findOne(db, query);
  return t ? { merchantId: t.merchantId, tenantDatabase: t.tenantDatabase } : null;
}

/** The tenant whose payment profile holds card-a connected account `accountId` (`payment_profiles.card_a_account_id`). */
export async function tenantOfCardAAccount(db: CentralDb, accountId: string): Promise<WebhookMerchant | null> {
  if (!accountId || accountId.length > 200) return null;
  return findMerchant(db, (schema) => sql`select null::text as location_id from ${sql.id(schema)}.payment_profiles where card_a_account_id = ${accountId}`);
}

/** The tenant whose payment profile holds card-b account `accountId` (`payment_profiles.card_b_account_id`, one profile per account). */
export async function tenantOfCardBAccount(db: CentralDb, accountId: string): Promise<WebhookMerchant | null> {
  if (!accountId || accountId.length > 200) return null;
  return findMerchant(db, (schema) => sql`select null::text as location_id from ${sql.id(schema)}.payment_profiles where card_b_account_id = ${accountId}`);
}

/** The tenant whose billing profile holds card-a customer `customerId` (`billing_profiles.card_a_customer_id`). */
export async function tenantOfCardABillingCustomer(db: CentralDb, customerId: string): Promise<WebhookMerchant | null> {
  if (!customerId || customerId.length > 200) return null;
  return findMerchant(db, (schema) => sql`select null::text as location_id from ${sql.id(schema)}.billing_profiles where card_a_customer_id = ${customerId}`);
}
