import type { Transaction } from 'kysely';
import type { CentralDb, CentralTables } from '@pos/db';
import { errors } from '@pos/kernel';

/**
 * Serialises the connection of a marketplace store or register site to a location (delivery-a,
 * delivery-b, register-d) without a transaction open across the provider's HTTP call (DESIGN 2): the
 * request claims the store and the location in `integration_connect_claims` (committed at once), calls
 * the provider, then writes the connection and drops the claim in one transaction (`finishConnectClaim`,
 * `finishClaimWith`), or drops the claim on failure (`releaseConnectClaim`). So a store ends at one
 * merchant and location, a location with one store.
 */
export interface ConnectClaim {
  /** The connection row's provider. */
  readonly provider: string;
  readonly externalRef: string;
  readonly merchantId: string;
  readonly locationId: string;
  /**
   * The providers that share one connection per location (register-d's vendors): the claim is kept
   * under this word, so a location connects one of them at a time. Defaults to `provider`.
   */
  readonly group?: string;
}

/** The claim row's key: the store under its provider, or under the group as `<provider>/<store>`. */
const claimKey = (c: ConnectClaim) => (c.group ? { provider: c.group, externalRef: `${c.provider}/${c.externalRef}` } : { provider: c.provider, externalRef: c.externalRef });

/** Longer than a connect's provider calls can take (at most three of 15 s); a crashed request's claim is then taken over. */
const CLAIM_MS = 60_000;

/** `label` names what is connected: `delivery-a store`, `register-d site`. */
const takenError = (label: string) => errors.conflict(`This ${label} is already connected elsewhere.`, { reason: 'integration_taken' });

/**
 * Claims the store and the location. 409 `integration_taken` when the store is connected to another
 * merchant, active at another location of this one, or being connected to another location; 409
 * `integration_busy` when another request is connecting a store to this location right now.
 */
export async function claimConnection(db: CentralDb, claim: ConnectClaim, label: string, now: Date): Promise<void> {
  const key = claimKey(claim);
  await db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('integration_connect_claims')
      .where('provider', '=', key.provider)
      .where((eb) => eb.or([eb('external_ref', '=', key.externalRef), eb.and([eb('merchant_id', '=', claim.merchantId), eb('location_id', '=', claim.locationId)])]))
      .where('claimed_until', '<=', now)
      .execute();
    // Waits for a concurrent claim of the same store or location to commit or roll back. A claim that
    // conflicted but is gone by the time it is looked at was released (its connect finished): claim again,
    // so the answer is what that connect left (taken, or ours), never a spurious `integration_busy`.
    for (let attempt = 1; ; attempt++) {
      const claimed = await trx
        .insertInto('integration_connect_claims')
        .values({ provider: key.provider, external_ref: key.externalRef, merchant_id: claim.merchantId, location_id: claim.locationId, claimed_until: new Date(now.getTime() + CLAIM_MS), created_at: now })
        .onConflict((oc) => oc.doNothing())
        .returning('provider')
        .executeTakeFirst();
      if (claimed) break;
      const storeHeld = await trx.selectFrom('integration_connect_claims').select(['merchant_id', 'location_id']).where('provider', '=', key.provider).where('external_ref', '=', key.externalRef).executeTakeFirst();
      if (storeHeld && (storeHeld.merchant_id !== claim.merchantId || storeHeld.location_id !== claim.locationId)) throw takenError(label);
      const locationHeld = await trx
        .selectFrom('integration_connect_claims')
        .select('provider')
        .where('provider', '=', key.provider)
        .where('merchant_id', '=', claim.merchantId)
        .where('location_id', '=', claim.locationId)
        .executeTakeFirst();
      if (storeHeld || locationHeld || attempt >= 3) throw errors.conflict(`Another ${label} is being connected to this location; try again.`, { reason: 'integration_busy' });
    }
    const owner = await trx
      .selectFrom('integration_connections')
      .select(['merchant_id', 'location_id', 'status'])
      .where('provider', '=', claim.provider)
      .where('external_ref', '=', claim.externalRef)
      .executeTakeFirst();
    // Throwing rolls the claim back with it.
    if (owner && (owner.merchant_id !== claim.merchantId || (owner.location_id !== claim.locationId && owner.status === 'active'))) throw takenError(label);
  });
}

/**
 * Runs a disconnect of the location (`run`: the provider call and the connection marked disabled) under
 * the location's claim, so it never interleaves with a connect: while a connect to the location is in
 * flight the disconnect is 409 `integration_busy` (the connect would otherwise re-activate a store right
 * after the disconnect answered), and a connect arriving during the disconnect is refused the same way.
 */
export async function disconnectUnderClaim<T>(db: CentralDb, location: Omit<ConnectClaim, 'externalRef'>, label: string, now: Date, run: () => Promise<T>): Promise<T> {
  // No store is named like this: the row only holds the location's unique key.
  const claim: ConnectClaim = { ...location, externalRef: `disconnecting:${location.locationId}` };
  await claimConnection(db, claim, label, now);
  try {
    return await run();
  } finally {
    await releaseConnectClaim(db, claim);
  }
}

/** Drops the claim (after a refused provider call). */
export async function releaseConnectClaim(db: CentralDb, claim: ConnectClaim): Promise<void> {
  const key = claimKey(claim);
  await db
    .deleteFrom('integration_connect_claims')
    .where('provider', '=', key.provider)
    .where('external_ref', '=', key.externalRef)
    .where('merchant_id', '=', claim.merchantId)
    .where('location_id', '=', claim.locationId)
    .execute();
}

/**
 * Runs `write` (the connection's rows) and drops the claim in one transaction; on any failure the claim
 * is dropped too. Answers what `write` answers.
 */
export async function finishClaimWith<T>(db: CentralDb, claim: ConnectClaim, write: (trx: Transaction<CentralTables>) => Promise<T>): Promise<T> {
  const key = claimKey(claim);
  try {
    return await db.transaction().execute(async (trx) => {
      const done = await write(trx);
      await trx.deleteFrom('integration_connect_claims').where('provider', '=', key.provider).where('external_ref', '=', key.externalRef).where('merchant_id', '=', claim.merchantId).where('location_id', '=', claim.locationId).execute();
      return done;
    });
  } catch (e) {
    await releaseConnectClaim(db, claim);
    throw e;
  }
}

/**
 * Writes the connection under the claim: the location's other stores are let go (one store per
 * location: disabled), the store's row is inserted or taken over (only when it is this merchant's), the claim is
 * dropped, all in one transaction. Answers the connection id; 409 `integration_taken` if the row turned
 * out to be another merchant's. `extra` is written with the row (an OAuth callback's tokens).
 */
export function finishConnectClaim(db: CentralDb, claim: ConnectClaim, label: string, values: { settings?: string; now: Date; extra?: ConnectionExtra }): Promise<string> {
  return finishClaimWith(db, claim, async (trx) => {
    const { provider, externalRef, merchantId, locationId } = claim;
    const { settings, now, extra = {} } = values;
    // Disabled, not deleted: their order events already received (`integration_events`, which a delete
    // took with it) are still imported, and their log is kept.
    await trx
      .updateTable('integration_connections')
      .set({ status: 'disabled', updated_at: now })
      .where('merchant_id', '=', merchantId)
      .where('provider', '=', provider)
      .where('location_id', '=', locationId)
      .where('external_ref', '<>', externalRef)
      .where('status', '<>', 'disabled')
      .execute();
    const taken = { location_id: locationId, status: 'active', ...(settings !== undefined ? { settings } : {}), ...extra, connected_at: now, updated_at: now };
    const row = await trx
      .insertInto('integration_connections')
      .values({ id: Bun.randomUUIDv7(), provider, external_ref: externalRef, merchant_id: merchantId, settings: settings ?? JSON.stringify({}), created_at: now, ...taken })
      .onConflict((oc) => oc.columns(['provider', 'external_ref']).doUpdateSet(taken).where('integration_connections.merchant_id', '=', merchantId))
      .returning('id')
      .executeTakeFirst();
    if (!row) throw takenError(label);
    return row.id;
  });
}

/** Columns an OAuth callback writes beside the connection (tokens stored encrypted). */
export interface ConnectionExtra {
  readonly access_token_encrypted?: string | null;
  readonly refresh_token_encrypted?: string | null;
  readonly token_expires_at?: Date | null;
  readonly scopes?: string | null;
}
