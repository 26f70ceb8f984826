import type { CentralDb } from '@pos/db';
import { decryptSecret, type TokenKey } from './token-crypto.ts';

/**
 * A location's register-a record: a row of central `integration_connections` with provider
 * `register-a`. `external_ref` is the selected store id (webhooks `store.<id>` find it), or
 * `location:<locationId>` until a store is selected; `external_group_ref` the store's company;
 * the pasted JWT in `access_token_encrypted`; its applicationId (the webhook HMAC key) in
 * `webhook_key_encrypted`; `settings` `{store_id, company_id, namespace, store_name}`.
 * `status`: `pending_store` (token saved, no store yet), `active`, `error`.
 */
export const REGISTER_A = 'register-a';

export interface RegisterARecord {
  readonly id: string;
  readonly merchantId: string;
  readonly locationId: string;
  readonly status: string;
  readonly storeId: string | null;
  readonly companyId: string | null;
  readonly storeName: string | null;
  readonly namespace: string | null;
  readonly tokenEncrypted: string | null;
  readonly connectedAt: Date | null;
  readonly updatedAt: Date;
  readonly settings: Record<string, unknown>;
}

export const pendingRef = (locationId: string) => `location:${locationId}`;

function toRecord(r: any): RegisterARecord {
  const s = (r.settings ?? {}) as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    id: r.id,
    merchantId: r.merchant_id,
    locationId: r.location_id,
    status: r.status,
    storeId: str(s.store_id),
    companyId: str(s.company_id),
    storeName: str(s.store_name),
    namespace: str(s.namespace),
    tokenEncrypted: r.access_token_encrypted,
    connectedAt: r.connected_at,
    updatedAt: r.updated_at,
    settings: s,
  };
}

const COLS = ['id', 'merchant_id', 'location_id', 'status', 'settings', 'access_token_encrypted', 'connected_at', 'updated_at'] as const;

/** The location's register-a record, or null. A failed query throws (never read as "none"). */
export async function registerARecord(db: CentralDb, merchantId: string, locationId: string): Promise<RegisterARecord | null> {
  const r = await db.selectFrom('integration_connections').select(COLS).where('provider', '=', REGISTER_A).where('merchant_id', '=', merchantId).where('location_id', '=', locationId).executeTakeFirst();
  return r ? toRecord(r) : null;
}

/** Every register-a record of a merchant (at most 500 locations). */
export async function registerARecords(db: CentralDb, merchantId: string): Promise<RegisterARecord[]> {
  const rows = await db.selectFrom('integration_connections').select(COLS).where('provider', '=', REGISTER_A).where('merchant_id', '=', merchantId).orderBy('created_at').limit(500).execute();
  return rows.map(toRecord);
}

/** The record of the merchant owning `tenantDatabase` for `locationId` (the worker knows the schema, not the merchant). */
export async function registerARecordByTenant(db: CentralDb, tenantDatabase: string, locationId: string): Promise<RegisterARecord | null> {
  const r = await db
    .selectFrom('integration_connections as c')
    .innerJoin('merchants as m', 'm.id', 'c.merchant_id')
    .select(['c.id', 'c.merchant_id', 'c.location_id', 'c.status', 'c.settings', 'c.access_token_encrypted', 'c.connected_at', 'c.updated_at'])
    .where('c.provider', '=', REGISTER_A)
    .where('m.tenant_database', '=', tenantDatabase)
    .where('c.location_id', '=', locationId)
    .executeTakeFirst();
  return r ? toRecord(r) : null;
}

/** The plaintext token of a record; null when absent or not readable with this key. */
export function recordToken(key: TokenKey, rec: RegisterARecord): string | null {
  return rec.tokenEncrypted ? decryptSecret(key, rec.tokenEncrypted) : null;
}
