import { sql } from 'kysely';
import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import type { CardAClient } from '@pos/providers/card-a/card-a-client';
import { inSubscriptionTurn, type BillingLockDeps } from '../settings/billing-subscriptions.ts';
import { lockSubscription } from '../webhooks/card-a-subscriptions.ts';
import { ENDED_SUBSCRIPTION_STATUSES } from '../settings/location-references.ts';

/**
 * A kiosk or kds a subscribe request billed is one unit of its card-a subscription, named in the
 * subscription's metadata (`device_ids`, what the webhooks read) and the local record's `device_ids`.
 * Deleting it takes that unit off (docs/decisions.md "Delete and move wait for no subscribe": a deleted
 * device is never billed): card-a is asked first, in the subscription's turn (cancel, reactivate, retry
 * and other deletes of it wait), and the delete's transaction then writes the record. card-a failing
 * refuses the delete (503) with nothing changed. A move keeps the unit: a subscription names its devices
 * wherever they are (card-a-subscriptions.ts `refreshDevices`).
 */

export const DEVICE_BILLING_NOT_UPDATED = "The device's card-a subscription could not be updated, so the device was not deleted; try again later.";

export type DeviceBillingDeps = BillingLockDeps & { readonly cardA: CardAClient | null };

/** What the delete's transaction writes onto the record: card-a applied it already. */
export interface UnitTakenOff {
  readonly recordId: string;
  readonly providerSubscriptionId: string;
  readonly deviceIds: string[];
  readonly cancelAtPeriodEnd: boolean;
}

const named = (deviceIds: unknown): string[] => (Array.isArray(deviceIds) ? (deviceIds as string[]) : []);

/**
 * A subscription that has not ended bills its units (past due, unpaid, incomplete or paused ones too,
 * once paid or resumed): only `canceled` and `incomplete_expired` bill nothing (location-references.ts).
 */
const billing = (status: string) => !(ENDED_SUBSCRIPTION_STATUSES as readonly string[]).includes(status);

/** The billing subscription record naming the device (a subscribe never bills a device twice: at most one). */
export function servingSubscriptionNaming(tdb: TenantDb, deviceId: string) {
  return tdb
    .selectFrom('billing_subscriptions')
    .select(['id', 'provider_subscription_id'])
    .where('status', 'not in', [...ENDED_SUBSCRIPTION_STATUSES])
    .where(sql<boolean>`jsonb_typeof(device_ids) = 'array' and device_ids @> ${JSON.stringify([deviceId])}::jsonb`)
    .orderBy('id')
    .executeTakeFirst();
}

/**
 * In the turn of the subscription of record `recordId`, runs `remove` with the unit of `deviceId` taken
 * off at card-a: the quantity is the devices left, one unit each (as subscribed), and the metadata names
 * them; the last unit cancels the subscription at the end of the paid period, as the cancel route does,
 * and its metadata then names no device. Null when there is nothing to take off (the record no longer
 * names the device, or it ended here or at card-a). Any card-a failure is 503 before `remove` runs.
 */
export function takingUnitOff<T>(tdb: TenantDb, deps: DeviceBillingDeps, record: { id: string; provider_subscription_id: string }, deviceId: string, remove: (unit: UnitTakenOff | null) => Promise<T>): Promise<T> {
  const subId = record.provider_subscription_id;
  return inSubscriptionTurn(
    deps,
    subId,
    async () => {
      // Read again in the turn: another delete of this subscription may have gone first.
      const current = await tdb.selectFrom('billing_subscriptions').select(['status', 'device_ids']).where('id', '=', record.id).executeTakeFirstOrThrow();
      if (!billing(current.status) || !named(current.device_ids).includes(deviceId)) return remove(null);
      const left = named(current.device_ids).filter((id) => id !== deviceId);
      const s = await atCardA(async () => {
        const client = deps.cardA;
        if (!client) throw new Error('card-a is not configured');
        const sub = await client.retrieveSubscription(subId);
        // Ended at card-a (its event not handled yet): nothing is billed any more.
        if (!billing(sub.status)) return null;
        if (!left.length) return client.updateSubscription(subId, { metadata: { device_ids: '' }, cancelAtPeriodEnd: true });
        const item = sub.items?.data[0];
        if (!item) throw new Error('card-a subscription without an item');
        return client.updateSubscription(subId, { item: { id: item.id, quantity: left.length }, metadata: { device_ids: left.join(',') } });
      });
      return remove(s && { recordId: record.id, providerSubscriptionId: subId, deviceIds: left, cancelAtPeriodEnd: s.cancel_at_period_end === true });
    },
    DEVICE_BILLING_NOT_UPDATED,
  );
}

/** Inside the delete's transaction: the record takes what card-a applied (under the subscription's database lock, as the webhooks write it). */
export async function recordUnitTakenOff(tx: TenantDb, unit: UnitTakenOff, now: Date): Promise<void> {
  await lockSubscription(tx, unit.providerSubscriptionId);
  await tx
    .updateTable('billing_subscriptions')
    .set({ device_ids: JSON.stringify(unit.deviceIds), cancel_at_period_end: unit.cancelAtPeriodEnd, updated_at: now })
    .where('id', '=', unit.recordId)
    .execute();
}

/** card-a away, refusing or not configured: the delete is refused, naming the billing (the cause is logged). */
async function atCardA<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw errors.unavailable(DEVICE_BILLING_NOT_UPDATED, { reason: 'provider_error', cause: e });
  }
}
