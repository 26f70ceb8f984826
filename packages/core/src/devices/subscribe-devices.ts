import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import type { CardAClient } from '@pos/providers/card-a/card-a-client';
import { errors, type Logger } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { findBillingProfile } from '../settings/billing-profiles.ts';
import { announceSubscription, applySubscription, refreshDevices, subscriptionFacts, withSubscriptionLock } from '../webhooks/card-a-subscriptions.ts';
import type { Obj } from '../webhooks/payload.ts';
import { atTerminalProvider, requireClient } from './device-provider.ts';
import { CLAIM_MS, claimLive, releaseClaim, SERVING, subscriptionsTouching } from './device-subscription-claims.ts';
import { findLocation, type BackofficeScope } from './device-records.ts';

export const NO_PAYMENT_METHOD = 'The billing profile has no payment method: add one first.';
export const NOTHING_TO_SUBSCRIBE = 'The location has no kiosk or kitchen display without a subscription.';
export const NOT_SUBSCRIBABLE = 'The selected device is not a kiosk or kitchen display at this location.';
export const ALREADY_COVERED = 'The selected device already has an active subscription.';
export const PRICE_NOT_CONFIGURED = 'Device subscriptions through card-a are not configured.';

export interface SubscribeDevicesInput {
  billing_profile_id: string;
  device_ids?: string[];
}

export interface SubscribeDevicesDeps {
  readonly cardA: CardAClient | null;
  readonly priceId: string | null;
  readonly redis: Redis;
  readonly log: Logger;
}

export interface DeviceSubscriptionView {
  id: string;
  provider_subscription_id: string;
  status: string;
  current_period_end: string | null;
  device_ids: string[];
  devices: { id: string; subscription_active_until: string }[];
}

/**
 * `POST /back-office/devices/subscribe/{locationId}` (CREATE_DEVICES): one card-a subscription, billed to
 * the billing profile's card-a customer, for the location's kiosk and kds devices (`device_ids`, or
 * every one not yet covered), at the configured device price with one unit per device. Its metadata
 * (`location_id`, `device_ids`) is what the card-a webhooks read, so the record they keep in step is this
 * one. The provider's answer is written at once under the subscription's lock and the devices'
 * `subscription_active_until` follows (the 402 gate lifts), then the location update is pushed.
 *
 * A device is in at most one serving subscription, whatever its location: one a serving subscription
 * covers, or another request has claimed (device-subscription-claims.ts), is refused (422) or left out.
 * The devices are claimed in a committed transaction before card-a is called, and the claim cleared
 * where the answer is applied, so requests at once never bill a device twice, and a device deleted or
 * moved meanwhile is never billed (those wait for no one: they are refused while the claim holds).
 */
export async function subscribeDevices(scope: BackofficeScope, deps: SubscribeDevicesDeps, locationId: string, input: SubscribeDevicesInput): Promise<DeviceSubscriptionView> {
  const loc = await findLocation(scope.tdb, locationId);
  const profile = await findBillingProfile(scope.tdb, input.billing_profile_id);
  if (!profile.card_a_customer_id) throw errors.field('billing_profile_id', NO_PAYMENT_METHOD);
  const customer = profile.card_a_customer_id;

  const claim = Bun.randomUUIDv7();
  const { deviceIds, records } = await claimDevices(scope, loc.id, input.device_ids, claim);
  // Same request again (a retry after card-a answered but we did not apply it): same key, card-a answers
  // the same subscription. Every record touching the location or the devices is in it, so once one has
  // ended, subscribing again is a new key and a new subscription (never the cancelled one replayed).
  const idempotencyKey = `subscribe_${createHash('sha256').update(JSON.stringify([scope.merchant.tenant_database, loc.id, customer, deviceIds, records.map((s) => s.id)])).digest('hex').slice(0, 48)}`;
  let facts: ReturnType<typeof subscriptionFacts>;
  try {
    const client = requireClient('card-a', deps.cardA);
    if (!deps.priceId) throw errors.unavailable(PRICE_NOT_CONFIGURED, { reason: 'provider_not_configured' });
    const price = deps.priceId;
    const sub = await atTerminalProvider('card-a', () =>
      client.createSubscription({ customer, price, paymentMethod: null, quantity: deviceIds.length, metadata: { location_id: loc.id, device_ids: deviceIds.join(',') }, idempotencyKey }),
    );
    facts = subscriptionFacts(sub as unknown as Obj);
    if (!facts) throw errors.unavailable('The card-a service is unavailable, try again later.', { reason: 'provider_error' });
  } catch (e) {
    // Nothing billed (or card-a will answer it to the same key again): the devices are free again.
    await releaseClaim(scope.tdb, claim);
    throw e;
  }
  const f = facts;

  const tenant = { merchantId: scope.merchant.id, tenantDatabase: scope.merchant.tenant_database, locationId: loc.id };
  // Event time 0: any webhook about this subscription is newer and still applies. The claim is cleared
  // in the same transaction that writes the record, so another request sees one or the other.
  const { record, devices } = await withSubscriptionLock(scope.tdb, f.id, async (tx) => {
    const record = (await applySubscription(tx, tenant, f, 0, scope.now)) ?? (await tx.selectFrom('billing_subscriptions').selectAll().where('provider_subscription_id', '=', f.id).executeTakeFirstOrThrow());
    await releaseClaim(tx, claim);
    const devices = await refreshDevices(tx, loc.id, scope.now);
    await logActivity(tx, { userId: scope.userId, action: 'subscribed_devices', subject: 'location', subjectId: loc.id, properties: { subscription: f.id, device_ids: deviceIds } });
    return { record, devices };
  });
  await announceSubscription(deps, tenant, { subscription_id: f.id, status: record.status, devices });
  return {
    id: record.id,
    provider_subscription_id: f.id,
    status: record.status,
    current_period_end: record.current_period_end?.toISOString() ?? null,
    device_ids: deviceIds,
    devices: devices.map((d) => ({ id: d.id, subscription_active_until: d.active_until.toISOString() })),
  };
}

/**
 * In one committed transaction: locks the location's live kiosk and kds rows (in id order, so requests
 * wait for each other's claims and a delete or move already under way), reads which are covered by a
 * serving subscription (any location's, or the location's own that covers all its devices) or claimed,
 * refuses or leaves those out, and claims the rest for `claim`. Answers the devices claimed and the
 * subscription records touching them or the location (for the idempotency key).
 */
async function claimDevices(scope: BackofficeScope, locationId: string, listed: string[] | undefined, claim: string) {
  return scope.tdb.transaction().execute(async (tx) => {
    const candidates = await tx
      .selectFrom('devices')
      .select(['id', 'subscription_claim', 'subscription_claim_until'])
      .where('location_id', '=', locationId)
      .where('type', 'in', ['kiosk', 'kds'])
      .where('deleted_at', 'is', null)
      .orderBy('id')
      .forUpdate()
      .execute();
    const records = await subscriptionsTouching(tx, locationId, candidates.map((c) => c.id));
    const serving = records.filter((r) => SERVING.includes(r.status));
    const claimed = new Set(candidates.filter((c) => claimLive(c, scope.now)).map((c) => c.id));
    const covered = (id: string) =>
      claimed.has(id) || serving.some((s) => (s.device_ids === null ? s.location_id === locationId : (s.device_ids as string[]).includes(id)));

    let deviceIds: string[];
    if (listed) {
      const known = new Set(candidates.map((c) => c.id));
      const fieldErrors: Record<string, string[]> = {};
      listed.forEach((id, i) => {
        const lower = id.toLowerCase();
        if (!known.has(lower)) fieldErrors[`device_ids.${i}`] = [NOT_SUBSCRIBABLE];
        else if (covered(lower)) fieldErrors[`device_ids.${i}`] = [ALREADY_COVERED];
      });
      if (Object.keys(fieldErrors).length) throw errors.validation(fieldErrors);
      deviceIds = [...new Set(listed.map((id) => id.toLowerCase()))].sort();
    } else {
      deviceIds = candidates.map((c) => c.id).filter((id) => !covered(id));
      if (!deviceIds.length) throw errors.field('device_ids', NOTHING_TO_SUBSCRIBE);
    }
    await tx
      .updateTable('devices')
      .set({ subscription_claim: claim, subscription_claim_until: new Date(scope.now.getTime() + CLAIM_MS) })
      .where('id', 'in', deviceIds)
      .execute();
    const touching = records.filter((r) => r.location_id === locationId || (Array.isArray(r.device_ids) && (r.device_ids as string[]).some((d) => deviceIds.includes(d))));
    return { deviceIds, records: touching };
  });
}
