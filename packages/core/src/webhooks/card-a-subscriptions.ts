import { sql, type Transaction } from 'kysely';
import { bindTenant, type TenantDb, type TenantTables } from '@pos/db';
import { AUTH_INVALIDATION_CHANNEL } from '../auth/auth-invalidation.ts';
import type { WebhookDeps } from './card-b-webhook.ts';
import { obj, str, type Obj } from './payload.ts';
import type { WebhookTenant } from './tenant-resolution.ts';
import { isUuid } from '@pos/domain/ids';
import { ProviderError } from '@pos/providers/shared/provider-error';

/**
 * card-a subscription events (spec 3 "Card-a events"): the local `billing_subscriptions` record
 * follows the provider's subscription, the devices it covers follow the record
 * (`devices.subscription_active_until`, what the 402 gate reads), the merchant's cached authentication
 * state is dropped everywhere and a real-time location update is pushed.
 *
 * Every change to one subscription runs under a database lock named after it
 * (`pg_advisory_xact_lock`), so the failed-invoice retry, the deletion and the SEPA recovery never
 * interleave (card-a-invoices.ts).
 */
export type TenantTx = Transaction<TenantTables>;

/** Statuses in which the provider still serves (and collects for) the subscription. */
const SERVING = new Set(['active', 'trialing', 'past_due']);

/** Redis pub/sub channel of a tenant's location updates (the real-time channel fans them out). */
export const locationChannel = (tenantDatabase: string) => `rt:${tenantDatabase}:location`;

export interface SubscriptionFacts {
  readonly id: string;
  readonly customer: string;
  readonly status: string;
  readonly currentPeriodEnd: Date | null;
  readonly priceId: string | null;
  readonly deviceIds: string[] | null;
  readonly cancelReason: string | null;
  readonly canceledAt: Date | null;
  readonly paymentMethod: string | null;
}

const seconds = (v: unknown): Date | null => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? new Date(v * 1000) : null);

/** A provider subscription object, read totally (the payload is untrusted in shape). */
export function subscriptionFacts(o: Obj): SubscriptionFacts | null {
  const id = str(o.id);
  const customer = str(o.customer);
  const status = str(o.status);
  if (!id || !customer || !status || id.length > 200 || customer.length > 200) return null;
  const items = obj(o.items).data;
  const price = Array.isArray(items) ? str(obj(obj(items[0]).price).id) : null;
  const devices = str(obj(o.metadata).device_ids);
  return {
    id,
    customer,
    status,
    currentPeriodEnd: seconds(o.current_period_end),
    priceId: price,
    deviceIds: devices ? devices.split(',').map((d) => d.trim()).filter(isUuid) : null,
    cancelReason: str(obj(o.cancellation_details).reason),
    canceledAt: seconds(o.canceled_at),
    paymentMethod: str(o.default_payment_method),
  };
}

/** Takes the subscription's lock in the transaction `tx` runs in (held until it ends). */
export async function lockSubscription(tx: TenantDb, subscriptionId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`card_a_subscription:${subscriptionId}`}))`.execute(tx);
}

/** Runs `fn` in one tenant transaction holding the subscription's lock. */
export function withSubscriptionLock<T>(tdb: TenantDb, subscriptionId: string, fn: (tx: TenantTx) => Promise<T>): Promise<T> {
  return tdb.transaction().execute(async (tx) => {
    await lockSubscription(tx, subscriptionId);
    return fn(tx);
  });
}

/**
 * Writes the provider's state onto the local record (created when missing). An event older than the
 * one last applied changes nothing, and a cancelled subscription stays cancelled (the provider never
 * revives one). Answers the record after the write, or null when the event was stale.
 */
export async function applySubscription(tx: TenantTx, tenant: WebhookTenant, f: SubscriptionFacts, eventCreated: number, now: Date) {
  const inserted = await tx
    .insertInto('billing_subscriptions')
    .values({
      id: Bun.randomUUIDv7(),
      provider_subscription_id: f.id,
      customer_id: f.customer,
      location_id: tenant.locationId,
      price_id: f.priceId,
      device_ids: f.deviceIds === null ? null : JSON.stringify(f.deviceIds),
      status: f.status,
      current_period_end: f.currentPeriodEnd,
      cancel_reason: f.cancelReason,
      canceled_at: f.canceledAt ?? (f.status === 'canceled' ? now : null),
      payment_method_id: f.paymentMethod,
      event_created: eventCreated,
      created_at: now,
      updated_at: now,
    })
    // A recovery may have written this subscription's record (another lock's holder): then update it.
    .onConflict((oc) => oc.column('provider_subscription_id').doNothing())
    .returningAll()
    .executeTakeFirst();
  if (inserted) return inserted;
  const current = await tx.selectFrom('billing_subscriptions').selectAll().where('provider_subscription_id', '=', f.id).forUpdate().executeTakeFirstOrThrow();
  const stale = Number(current.event_created) > eventCreated || (current.status === 'canceled' && f.status !== 'canceled');
  if (stale) return null;
  return tx
    .updateTable('billing_subscriptions')
    .set({
      status: f.status,
      current_period_end: f.currentPeriodEnd,
      price_id: f.priceId ?? current.price_id,
      device_ids: f.deviceIds === null ? current.device_ids : JSON.stringify(f.deviceIds),
      cancel_reason: f.cancelReason,
      canceled_at: f.canceledAt ?? (f.status === 'canceled' ? now : null),
      payment_method_id: current.payment_method_id ?? f.paymentMethod,
      event_created: eventCreated,
      updated_at: now,
    })
    .where('id', '=', current.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * The kiosk and kds devices a location's subscription records cover get the latest period end of the
 * serving records covering them (any location's), or `now` (ended) when only ended records cover them. A record without
 * `device_ids` covers the devices at its location; one naming devices covers those devices wherever
 * they are now (a named device moved to another location is still the one it bills for, and the
 * subscribe route counts it as covered). A device no record covers keeps what it has. Answers the
 * devices changed.
 */
export async function refreshDevices(tx: TenantTx, locationId: string, now: Date): Promise<{ id: string; active_until: Date }[]> {
  // Every record of the merchant (a handful): a device this location's records touch may be covered by
  // another location's too (one at its new location, or one naming it), which must not be ignored.
  const all = await tx.selectFrom('billing_subscriptions').select(['location_id', 'status', 'current_period_end', 'device_ids']).execute();
  const records = all.filter((r) => r.location_id === locationId);
  if (!records.length) return [];
  const named = [...new Set(records.flatMap((r) => (Array.isArray(r.device_ids) ? (r.device_ids as unknown[]).filter(isUuid) : [])))];
  const devices = await tx
    .selectFrom('devices')
    .select(['id', 'location_id', 'subscription_active_until'])
    .where((eb) => (named.length ? eb.or([eb('location_id', '=', locationId), eb('id', 'in', named)]) : eb('location_id', '=', locationId)))
    .where('type', 'in', ['kiosk', 'kds'])
    .where('deleted_at', 'is', null)
    .execute();
  const changed: { id: string; active_until: Date }[] = [];
  for (const d of devices) {
    const covering = all.filter((r) => (r.device_ids === null ? d.location_id === r.location_id : (r.device_ids as string[]).includes(d.id)));
    if (!covering.length) continue;
    const ends = covering.filter((r) => SERVING.has(r.status) && r.current_period_end && r.current_period_end > now).map((r) => r.current_period_end!.getTime());
    // An ended subscription never extends a device; it only ends it (an earlier end stays).
    const prior = d.subscription_active_until;
    const until = ends.length ? new Date(Math.max(...ends)) : prior && prior < now ? prior : now;
    if (prior?.getTime() === until.getTime()) continue;
    await tx.updateTable('devices').set({ subscription_active_until: until }).where('id', '=', d.id).execute();
    changed.push({ id: d.id, active_until: until });
  }
  return changed;
}

/** After the commit: drop the merchant's cached authentication state everywhere and push the location update. */
export async function announceSubscription(deps: Pick<WebhookDeps, 'redis' | 'log'>, tenant: WebhookTenant, event: { subscription_id: string; status: string; devices: { id: string; active_until: Date }[] }): Promise<void> {
  try {
    // Device records (with their subscription) are cached by every API process; this process hears it too.
    await deps.redis.publish(AUTH_INVALIDATION_CHANNEL, tenant.merchantId);
  } catch (e) {
    deps.log.error('auth invalidation not published after a subscription change', { merchant_id: tenant.merchantId, err: e });
  }
  try {
    await deps.redis.publish(
      locationChannel(tenant.tenantDatabase),
      JSON.stringify({
        type: 'location.updated',
        reason: 'subscription',
        location_id: tenant.locationId,
        subscription_id: event.subscription_id,
        status: event.status,
        devices: event.devices.map((d) => ({ id: d.id, subscription_active_until: d.active_until.toISOString() })),
      }),
    );
  } catch (e) {
    deps.log.warn('location update push failed', { location_id: tenant.locationId, err: e });
  }
}

/**
 * The subscription as card-a has it now, when a card-a client is configured: events carry `created` in
 * whole seconds and arrive in any order, so two of one second (created, then updated to active) could
 * leave the older state on the record and end paid devices (402) until the next event, maybe a month
 * later. A subscription card-a no longer knows (404) is taken as the event says; card-a away is thrown,
 * and card-a delivers the event again later.
 */
async function currentSubscription(deps: WebhookDeps, object: Obj): Promise<Obj> {
  const id = str(object.id);
  if (!deps.providers.cardA || !id) return object;
  try {
    return (await deps.providers.cardA.retrieveSubscription(id)) as unknown as Obj;
  } catch (e) {
    if (e instanceof ProviderError && e.status === 404) return object;
    throw e;
  }
}

/** `customer.subscription.*` other than deleted: synchronise the record, refresh the devices, announce. */
export async function syncSubscription(deps: WebhookDeps, tenant: WebhookTenant, object: Obj, eventCreated: number): Promise<'processed' | 'ignored'> {
  const f = subscriptionFacts(await currentSubscription(deps, object));
  if (!f) throw new Error('subscription_unreadable');
  const tdb = bindTenant(deps.db, tenant.tenantDatabase);
  const r = await withSubscriptionLock(tdb, f.id, async (tx) => {
    const row = await applySubscription(tx, tenant, f, eventCreated, deps.now());
    if (!row) return null;
    return { row, devices: await refreshDevices(tx, row.location_id, deps.now()) };
  });
  if (!r) {
    deps.log.info('card-a subscription event older than the record; nothing changed', { subscription_id: f.id });
    return 'ignored';
  }
  await announceSubscription(deps, { ...tenant, locationId: r.row.location_id }, { subscription_id: f.id, status: r.row.status, devices: r.devices });
  return 'processed';
}

/** `setup_intent.succeeded`: the customer's SEPA payment method and mandate, kept on their subscription records. */
export async function storeMandate(deps: WebhookDeps, tenant: WebhookTenant, object: Obj): Promise<'processed'> {
  const customer = str(object.customer);
  const paymentMethod = str(object.payment_method);
  const mandate = str(object.mandate);
  if (!customer || !paymentMethod) throw new Error('setup_intent_unreadable');
  const tdb = bindTenant(deps.db, tenant.tenantDatabase);
  const r = await tdb
    .updateTable('billing_subscriptions')
    .set({ payment_method_id: paymentMethod, mandate_id: mandate, updated_at: deps.now() })
    .where('customer_id', '=', customer)
    .executeTakeFirst();
  // Kept for a replay once the subscription is known locally (the event itself is stored).
  if (Number(r.numUpdatedRows) === 0) throw new Error('no_subscription_for_customer');
  return 'processed';
}
