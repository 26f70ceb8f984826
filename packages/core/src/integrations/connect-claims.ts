import type { CentralDb } from '@pos/db';
import { errors } from '@pos/kernel';

/**
 * Serialises the connection of a marketplace store to a location (delivery-a, delivery-b) without a
 * transaction open across the provider's HTTP call (DESIGN 2): the request claims the store and the
 * location in `integration_connect_claims` (committed at once), calls the provider, then writes the
 * connection and drops the claim in one transaction (`finishConnectClaim`), or drops the claim on failure
 * (`releaseConnectClaim`). So a store ends at one merchant and location, a location with one store.
 */
export interface ConnectClaim {
  readonly provider: string;
  readonly externalRef: string;
  readonly merchantId: string;
  readonly locationId: string;
}

/** Longer than a connect's provider calls can take (at most three of 15 s); a crashed request's claim is then taken over. */
const CLAIM_MS = 60_000;

const takenError = (label: string) => errors.conflict(`This ${label} store is already connected elsewhere.`, { reason: 'integration_taken' });

/**
 * Claims the store and the location. 409 `integration_taken` when the store is connected to another
 * merchant, active at another location of this one, or being connected to another location; 409
 * `integration_busy` when another request is connecting a store to this location right now.
 */
export async function claimConnection(db: CentralDb, claim: ConnectClaim, label: string, now: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .deleteFrom('integration_connect_claims')
      .where('provider', '=', claim.provider)
      .where((eb) => eb.or([eb('external_ref', '=', claim.externalRef), eb.and([eb('merchant_id', '=', claim.merchantId), eb('location_id', '=', claim.locationId)])]))
      .where('claimed_until', '<=', now)
      .execute();
    // Waits for a concurrent claim of the same store or location to commit or roll back.
    const claimed = await trx
      .insertInto('integration_connect_claims')
      .values({ provider: claim.provider, external_ref: claim.externalRef, merchant_id: claim.merchantId, location_id: claim.locationId, claimed_until: new Date(now.getTime() + CLAIM_MS), created_at: now })
      .onConflict((oc) => oc.doNothing())
      .returning('provider')
      .executeTakeFirst();
    if (!claimed) {
      const storeHeld = await trx.selectFrom('integration_connect_claims').select(['merchant_id', 'location_id']).where('provider', '=', claim.provider).where('external_ref', '=', claim.externalRef).executeTakeFirst();
      if (storeHeld && (storeHeld.merchant_id !== claim.merchantId || storeHeld.location_id !== claim.locationId)) throw takenError(label);
      throw errors.conflict(`Another ${label} store is being connected to this location; try again.`, { reason: 'integration_busy' });
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

/** Drops the claim (after a refused provider call). */
export async function releaseConnectClaim(db: CentralDb, claim: ConnectClaim): Promise<void> {
  await db
    .deleteFrom('integration_connect_claims')
    .where('provider', '=', claim.provider)
    .where('external_ref', '=', claim.externalRef)
    .where('merchant_id', '=', claim.merchantId)
    .where('location_id', '=', claim.locationId)
    .execute();
}

/**
 * Writes the connection under the claim: the location's other stores are let go (one store per
 * location), the store's row is inserted or taken over (only when it is this merchant's), the claim is
 * dropped, all in one transaction. Answers the connection id; 409 `integration_taken` if the row turned
 * out to be another merchant's.
 */
export async function finishConnectClaim(db: CentralDb, claim: ConnectClaim, label: string, values: { settings: string; now: Date }): Promise<string> {
  try {
    return await db.transaction().execute(async (trx) => {
      const { provider, externalRef, merchantId, locationId } = claim;
      const { settings, now } = values;
      await trx.deleteFrom('integration_connections').where('merchant_id', '=', merchantId).where('provider', '=', provider).where('location_id', '=', locationId).where('external_ref', '<>', externalRef).execute();
      const row = await trx
        .insertInto('integration_connections')
        .values({ id: Bun.randomUUIDv7(), provider, external_ref: externalRef, merchant_id: merchantId, location_id: locationId, status: 'active', settings, connected_at: now, created_at: now, updated_at: now })
        .onConflict((oc) => oc.columns(['provider', 'external_ref']).doUpdateSet({ location_id: locationId, status: 'active', settings, connected_at: now, updated_at: now }).where('integration_connections.merchant_id', '=', merchantId))
        .returning('id')
        .executeTakeFirst();
      if (!row) throw takenError(label);
      await trx.deleteFrom('integration_connect_claims').where('provider', '=', provider).where('external_ref', '=', externalRef).where('merchant_id', '=', merchantId).where('location_id', '=', locationId).execute();
      return row.id;
    });
  } catch (e) {
    await releaseConnectClaim(db, claim);
    throw e;
  }
}
