import { sql, type SqlBool } from 'kysely';
import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';

/**
 * A subscribe request reserves its kiosks and kds (`devices.subscription_claim`, with a time) in a
 * transaction committed before it calls card-a, and clears the claim where it applies card-a's answer
 * (or when the call fails). No transaction stays open across the provider call (DESIGN 2). While a live
 * claim holds a device, another subscribe leaves it out (or refuses it), and it is neither deleted nor
 * moved, so a device is never billed twice nor billed after it was deleted or moved away.
 *
 * The claim outlives card-a's 15 s timeout with room; a holder that crashed leaves a claim that lapses.
 */
export const CLAIM_MS = 60_000;

export const DEVICE_BEING_SUBSCRIBED = 'The device is being subscribed; try again in a moment.';

/** Subscription statuses that still serve the devices they cover (as the webhook handler counts them). */
export const SERVING = ['active', 'trialing', 'past_due'];

export const claimLive = (d: { subscription_claim: string | null; subscription_claim_until: Date | null }, now: Date) =>
  d.subscription_claim !== null && d.subscription_claim_until !== null && d.subscription_claim_until > now;

/** Subscription records of the merchant that name one of `deviceIds` or belong to `locationId`, any status. */
export function subscriptionsTouching(tdb: TenantDb, locationId: string, deviceIds: string[]) {
  return tdb
    .selectFrom('billing_subscriptions')
    .select(['id', 'location_id', 'device_ids', 'status'])
    .where((eb) =>
      eb.or([
        eb('location_id', '=', locationId),
        sql<SqlBool>`exists (select 1 from jsonb_array_elements_text(case when jsonb_typeof(device_ids) = 'array' then device_ids else '[]'::jsonb end) as d(id) where d.id = any(${deviceIds}::text[]))`,
      ]),
    )
    .orderBy('id')
    .execute();
}

/** Clears the claims `claim` holds (its answer applied, or its provider call failed). */
export async function releaseClaim(tdb: TenantDb, claim: string): Promise<void> {
  await tdb.updateTable('devices').set({ subscription_claim: null, subscription_claim_until: null }).where('subscription_claim', '=', claim).execute();
}

/**
 * Inside the delete or move transaction: locks the device row and refuses (409 `device_subscribing`)
 * while a subscribe request holds it, so it is not deleted or moved while card-a bills it.
 */
export async function requireNotBeingSubscribed(tx: TenantDb, deviceId: string, now: Date): Promise<void> {
  const d = await tx.selectFrom('devices').select(['subscription_claim', 'subscription_claim_until']).where('id', '=', deviceId).forUpdate().executeTakeFirst();
  if (d && claimLive(d, now)) throw errors.conflict(DEVICE_BEING_SUBSCRIBED, { reason: 'device_subscribing' });
}
