import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import type { CardAClient } from '@pos/providers/card-a/card-a-client';
import { errors, type Logger } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { findBillingProfile } from '../settings/billing-profiles.ts';
import { announceSubscription, applySubscription, refreshDevices, subscriptionFacts, withSubscriptionLock } from '../webhooks/card-a-subscriptions.ts';
import type { Obj } from '../webhooks/payload.ts';
import { atTerminalProvider, requireClient } from './device-provider.ts';
import { findLocation, type BackofficeScope } from './device-records.ts';

export const NO_PAYMENT_METHOD = 'The billing profile has no payment method: add one first.';
export const NOTHING_TO_SUBSCRIBE = 'The location has no kiosk or kitchen display without a subscription.';
export const NOT_SUBSCRIBABLE = 'The selected device is not a kiosk or kitchen display at this location.';
export const ALREADY_COVERED = 'The selected device already has an active subscription.';
export const PRICE_NOT_CONFIGURED = 'Device subscriptions through card-a are not configured.';

/** Subscription statuses that still serve the devices they cover (as the webhook handler counts them). */
const SERVING = ['active', 'trialing', 'past_due'];

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
 * A device a serving subscription already covers is refused (422), so nothing is billed twice. Two
 * requests at once for the same devices send the same idempotency key (made of the location, the
 * devices and the subscriptions covering the location), so card-a makes one subscription.
 */
export async function subscribeDevices(scope: BackofficeScope, deps: SubscribeDevicesDeps, locationId: string, input: SubscribeDevicesInput): Promise<DeviceSubscriptionView> {
  const loc = await findLocation(scope.tdb, locationId);
  const profile = await findBillingProfile(scope.tdb, input.billing_profile_id);
  if (!profile.card_a_customer_id) throw errors.field('billing_profile_id', NO_PAYMENT_METHOD);
  const customer = profile.card_a_customer_id;

  const candidates = await scope.tdb
    .selectFrom('devices')
    .select('id')
    .where('location_id', '=', loc.id)
    .where('type', 'in', ['kiosk', 'kds'])
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .execute();
  const serving = await scope.tdb.selectFrom('billing_subscriptions').select(['id', 'device_ids']).where('location_id', '=', loc.id).where('status', 'in', SERVING).orderBy('id').execute();
  const covered = (id: string) => serving.some((s) => s.device_ids === null || (s.device_ids as string[]).includes(id));

  let deviceIds: string[];
  if (input.device_ids) {
    const known = new Set(candidates.map((c) => c.id));
    const fieldErrors: Record<string, string[]> = {};
    input.device_ids.forEach((id, i) => {
      const lower = id.toLowerCase();
      if (!known.has(lower)) fieldErrors[`device_ids.${i}`] = [NOT_SUBSCRIBABLE];
      else if (covered(lower)) fieldErrors[`device_ids.${i}`] = [ALREADY_COVERED];
    });
    if (Object.keys(fieldErrors).length) throw errors.validation(fieldErrors);
    deviceIds = [...new Set(input.device_ids.map((id) => id.toLowerCase()))].sort();
  } else {
    deviceIds = candidates.map((c) => c.id).filter((id) => !covered(id));
    if (!deviceIds.length) throw errors.field('device_ids', NOTHING_TO_SUBSCRIBE);
  }

  const client = requireClient('card-a', deps.cardA);
  if (!deps.priceId) throw errors.unavailable(PRICE_NOT_CONFIGURED, { reason: 'provider_not_configured' });
  const price = deps.priceId;
  const idempotencyKey = `subscribe_${createHash('sha256').update(JSON.stringify([scope.merchant.tenant_database, loc.id, customer, deviceIds, serving.map((s) => s.id)])).digest('hex').slice(0, 48)}`;
  const sub = await atTerminalProvider('card-a', () =>
    client.createSubscription({ customer, price, paymentMethod: null, quantity: deviceIds.length, metadata: { location_id: loc.id, device_ids: deviceIds.join(',') }, idempotencyKey }),
  );
  const facts = subscriptionFacts(sub as unknown as Obj);
  if (!facts) throw errors.unavailable('The card-a service is unavailable, try again later.', { reason: 'provider_error' });

  const tenant = { merchantId: scope.merchant.id, tenantDatabase: scope.merchant.tenant_database, locationId: loc.id };
  // Event time 0: any webhook about this subscription is newer and still applies.
  const { record, devices } = await withSubscriptionLock(scope.tdb, facts.id, async (tx) => {
    const record = (await applySubscription(tx, tenant, facts, 0, scope.now)) ?? (await tx.selectFrom('billing_subscriptions').selectAll().where('provider_subscription_id', '=', facts.id).executeTakeFirstOrThrow());
    const devices = await refreshDevices(tx, loc.id, scope.now);
    await logActivity(tx, { userId: scope.userId, action: 'subscribed_devices', subject: 'location', subjectId: loc.id, properties: { subscription: facts.id, device_ids: deviceIds } });
    return { record, devices };
  });
  await announceSubscription(deps, tenant, { subscription_id: facts.id, status: record.status, devices });
  return {
    id: record.id,
    provider_subscription_id: facts.id,
    status: record.status,
    current_period_end: record.current_period_end?.toISOString() ?? null,
    device_ids: deviceIds,
    devices: devices.map((d) => ({ id: d.id, subscription_active_until: d.active_until.toISOString() })),
  };
}
