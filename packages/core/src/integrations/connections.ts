import { sql } from 'kysely';
import type { CentralDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { encryptSecret, type TokenKey } from './token-crypto.ts';

/**
 * Integration connections (central `integration_connections`): a merchant's account at a provider,
 * found by the provider's own reference. Webhooks resolve their tenant here; OAuth callbacks and the
 * integrations issue (17) write here.
 */
export interface ConnectionTarget {
  readonly id: string;
  readonly provider: string;
  readonly externalRef: string;
  readonly merchantId: string;
  readonly tenantDatabase: string;
  readonly locationId: string | null;
  readonly status: string;
  readonly webhookKeyEncrypted: string | null;
}

/**
 * The connections of a provider answering to a reference (`external_ref`) or a group reference
 * (`external_group_ref`, the register-a company); at most 50.
 */
export async function connectionsByRef(db: CentralDb, provider: string, ref: { externalRef?: string | null; groupRef?: string | null }): Promise<ConnectionTarget[]> {
  if (!ref.externalRef && !ref.groupRef) return [];
  if ((ref.externalRef?.length ?? 0) > 200 || (ref.groupRef?.length ?? 0) > 200) return [];
  const rows = await db
    .selectFrom('integration_connections as c')
    .innerJoin('merchants as m', 'm.id', 'c.merchant_id')
    .select(['c.id', 'c.provider', 'c.external_ref', 'c.merchant_id', 'm.tenant_database', 'c.location_id', 'c.status', 'c.webhook_key_encrypted'])
    .where('c.provider', '=', provider)
    .where((eb) => {
      const ors = [];
      if (ref.externalRef) ors.push(eb('c.external_ref', '=', ref.externalRef));
      if (ref.groupRef) ors.push(eb('c.external_group_ref', '=', ref.groupRef));
      return eb.or(ors);
    })
    .orderBy('c.created_at')
    .limit(50)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    provider: r.provider,
    externalRef: r.external_ref,
    merchantId: r.merchant_id,
    tenantDatabase: r.tenant_database,
    locationId: r.location_id,
    status: r.status,
    webhookKeyEncrypted: r.webhook_key_encrypted,
  }));
}

/** Whether the connection's location still exists in its merchant's schema (a removed location fails the event). */
export async function locationExists(db: CentralDb, tenantDatabase: string, locationId: string): Promise<boolean> {
  const r = await sql<{ one: number }>`select 1 as one from ${sql.id(tenantDatabase)}.locations where id = ${locationId}::uuid`.execute(db);
  return r.rows.length === 1;
}

export interface ConnectionInput {
  readonly provider: string;
  readonly externalRef: string;
  readonly externalGroupRef?: string | null;
  readonly merchantId: string;
  readonly locationId?: string | null;
  readonly status?: string;
  /** Plaintext; stored encrypted. */
  readonly webhookKey?: string | null;
  readonly accessToken?: string | null;
  readonly refreshToken?: string | null;
  readonly tokenExpiresAt?: Date | null;
  readonly scopes?: string | null;
}

/**
 * Creates or updates the connection of (provider, external reference). The reference belongs to one
 * merchant: another merchant's connection is refused (409 `integration_taken`), nothing written.
 */
export async function saveConnection(db: CentralDb, key: TokenKey, input: ConnectionInput, now: Date): Promise<{ id: string; created: boolean }> {
  const enc = (v: string | null | undefined) => (v === undefined ? undefined : v === null ? null : encryptSecret(key, v));
  return db.transaction().execute(async (trx) => {
    const values = {
      ...(input.externalGroupRef !== undefined ? { external_group_ref: input.externalGroupRef } : {}),
      ...(input.locationId !== undefined ? { location_id: input.locationId } : {}),
      status: input.status ?? 'active',
      ...(input.webhookKey !== undefined ? { webhook_key_encrypted: enc(input.webhookKey) } : {}),
      ...(input.accessToken !== undefined ? { access_token_encrypted: enc(input.accessToken), connected_at: now } : {}),
      ...(input.refreshToken !== undefined ? { refresh_token_encrypted: enc(input.refreshToken) } : {}),
      ...(input.tokenExpiresAt !== undefined ? { token_expires_at: input.tokenExpiresAt } : {}),
      ...(input.scopes !== undefined ? { scopes: input.scopes } : {}),
      updated_at: now,
    };
    const id = Bun.randomUUIDv7();
    // Two saves of a new reference at once: the second waits for the first's row here instead of
    // failing on the unique key (a 500), then takes the update path below.
    const inserted = await trx
      .insertInto('integration_connections')
      .values({ id, provider: input.provider, external_ref: input.externalRef, merchant_id: input.merchantId, settings: JSON.stringify({}), created_at: now, ...values })
      .onConflict((oc) => oc.columns(['provider', 'external_ref']).doNothing())
      .returning('id')
      .executeTakeFirst();
    if (inserted) return { id, created: true };
    const existing = await trx
      .selectFrom('integration_connections')
      .select(['id', 'merchant_id'])
      .where('provider', '=', input.provider)
      .where('external_ref', '=', input.externalRef)
      .forUpdate()
      .executeTakeFirstOrThrow();
    if (existing.merchant_id !== input.merchantId) throw errors.conflict('This provider account is already connected to another merchant.', { reason: 'integration_taken' });
    await trx.updateTable('integration_connections').set(values).where('id', '=', existing.id).execute();
    return { id: existing.id, created: false };
  });
}

/** A location-scoped connection as the administration use cases read it (delivery-a, delivery-b, register-d). */
export interface LocationConnectionRow {
  id: string;
  external_ref: string;
  status: string;
  connected_at: Date | null;
  menu_synced_at: Date | null;
  settings: Record<string, unknown>;
}

/** The newest connection of `provider` at the merchant's location (whatever its status), or null. */
export async function locationConnection(db: CentralDb, merchantId: string, provider: string, locationId: string): Promise<LocationConnectionRow | null> {
  const r = await db
    .selectFrom('integration_connections')
    .select(['id', 'external_ref', 'status', 'connected_at', 'menu_synced_at', 'settings'])
    .where('merchant_id', '=', merchantId)
    .where('provider', '=', provider)
    .where('location_id', '=', locationId)
    // The live store first: a location keeps the rows of stores it let go (disabled), and one taken back
    // keeps its first `created_at`.
    .orderBy(sql`status = 'active'`, 'desc')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  return (r as LocationConnectionRow | undefined) ?? null;
}
