import { bindTenant } from '@pos/db';
import type { WebhookDeps } from './card-b-webhook.ts';
import { announceSubscription, applySubscription, refreshDevices, subscriptionFacts, withSubscriptionLock, type TenantTx } from './card-a-subscriptions.ts';
import { obj, str, type Obj } from './payload.ts';
import type { WebhookTenant } from './tenant-resolution.ts';

/** Failed-invoice cache (spec 3 section 8): 10 minutes. */
export const FAILED_INVOICE_TTL_S = 600;
export const failedInvoiceKey = (subscriptionId: string) => `card_a_invoice_failed:${subscriptionId}`;
const retryKey = (invoiceId: string) => `card_a_invoice_retried:${invoiceId}`;

export interface FailedInvoice {
  readonly invoice_id: string;
  readonly customer: string;
  readonly amount_due: number | null;
  readonly event_id: string;
}

type Announce = Parameters<typeof announceSubscription>[2] & { locationId: string };

/**
 * `invoice.payment_failed` (spec 3): the failure is cached 10 minutes and the invoice is retried at
 * once with the customer's mandate (once per invoice: the retry's own failure event does not retry
 * again). Under the subscription's lock: when the subscription was already deleted for that failure,
 * this handler is the second to arrive and runs the SEPA recovery itself.
 */
export async function invoicePaymentFailed(deps: WebhookDeps, tenant: WebhookTenant, object: Obj, eventId: string): Promise<'processed' | 'ignored'> {
  const invoiceId = str(object.id);
  const subscriptionId = str(object.subscription);
  const customer = str(object.customer);
  if (!invoiceId || !customer) throw new Error('invoice_unreadable');
  if (!subscriptionId) {
    deps.log.info('card-a failed invoice without a subscription; stored only', { invoice_id: invoiceId });
    return 'ignored';
  }
  const failure: FailedInvoice = { invoice_id: invoiceId, customer, amount_due: typeof object.amount_due === 'number' ? object.amount_due : null, event_id: eventId };
  const tdb = bindTenant(deps.db, tenant.tenantDatabase);
  const announce = await withSubscriptionLock(tdb, subscriptionId, async (tx): Promise<Announce | null> => {
    const record = await tx.selectFrom('billing_subscriptions').selectAll().where('provider_subscription_id', '=', subscriptionId).executeTakeFirst();
    // Already recovered (a later delivery of the same failure): nothing to cache or retry.
    if (record?.recovered_by) return null;
    // Cached inside the lock, so a deletion handled after this sees it.
    await deps.redis.set(failedInvoiceKey(subscriptionId), JSON.stringify(failure), 'EX', FAILED_INVOICE_TTL_S);
    if (!record) {
      deps.log.warn('card-a failed invoice for a subscription with no local record', { subscription_id: subscriptionId, invoice_id: invoiceId });
      return null;
    }
    if (record.status === 'canceled') return recover(deps, tx, subscriptionId);
    if (!record.mandate_id || !record.payment_method_id) {
      deps.log.warn('card-a failed invoice: no mandate to retry with', { subscription_id: subscriptionId, invoice_id: invoiceId });
      return null;
    }
    if ((await deps.redis.set(retryKey(invoiceId), eventId, 'EX', FAILED_INVOICE_TTL_S, 'NX')) !== 'OK') return null;
    if (!deps.providers.cardA) throw new Error('card_a_not_configured');
    try {
      await deps.providers.cardA.payInvoice(invoiceId, { paymentMethod: record.payment_method_id, mandate: record.mandate_id });
      // Paid: nothing left to recover.
      await deps.redis.del(failedInvoiceKey(subscriptionId));
      deps.log.info('card-a failed invoice paid with the mandate', { subscription_id: subscriptionId, invoice_id: invoiceId });
    } catch (e) {
      deps.log.warn('card-a invoice retry with the mandate failed', { subscription_id: subscriptionId, invoice_id: invoiceId, err: e });
    }
    return null;
  });
  if (announce) await announceSubscription(deps, { ...tenant, locationId: announce.locationId }, announce);
  return 'processed';
}

/**
 * `customer.subscription.deleted` (spec 3: cancelled, with SEPA recovery): the record ends, and when
 * the deletion is for a payment failure whose invoice failure is cached, the subscription is recreated
 * with the mandate. Both run under the subscription's lock; whichever of this and the failed-invoice
 * handler comes second recovers, and a recovered subscription is never recovered again.
 */
export async function subscriptionDeleted(deps: WebhookDeps, tenant: WebhookTenant, object: Obj, eventCreated: number): Promise<'processed' | 'ignored'> {
  const f = subscriptionFacts(object);
  if (!f) throw new Error('subscription_unreadable');
  const tdb = bindTenant(deps.db, tenant.tenantDatabase);
  const deleted = { ...f, status: 'canceled' };
  const r = await withSubscriptionLock(tdb, f.id, async (tx): Promise<Announce | null> => {
    const row = await applySubscription(tx, tenant, deleted, eventCreated, deps.now());
    if (!row) return null;
    const recovered = await recover(deps, tx, f.id);
    if (recovered) return recovered;
    return { subscription_id: f.id, status: 'canceled', devices: await refreshDevices(tx, row.location_id, deps.now()), locationId: row.location_id };
  });
  if (!r) return 'ignored';
  await announceSubscription(deps, { ...tenant, locationId: r.locationId }, r);
  return 'processed';
}

/**
 * SEPA recovery, under the subscription's lock: a subscription cancelled for a payment failure, with
 * that failure cached and a mandate on record, is recreated at the provider with the mandate, recorded
 * locally, and the old record points at it. Answers what to announce, or null when there was nothing
 * to recover (yet).
 */
async function recover(deps: WebhookDeps, tx: TenantTx, subscriptionId: string): Promise<Announce | null> {
  const old = await tx.selectFrom('billing_subscriptions').selectAll().where('provider_subscription_id', '=', subscriptionId).forUpdate().executeTakeFirstOrThrow();
  if (old.status !== 'canceled' || old.cancel_reason !== 'payment_failed' || old.recovered_by) return null;
  const cached = await deps.redis.get(failedInvoiceKey(subscriptionId));
  if (!cached) return null;
  if (!old.mandate_id || !old.payment_method_id || !old.price_id) {
    deps.log.warn('card-a SEPA recovery impossible: no mandate or price on record', { subscription_id: subscriptionId });
    return null;
  }
  if (!deps.providers.cardA) throw new Error('card_a_not_configured');
  const metadata: Record<string, string> = { location_id: old.location_id, recovered_from: subscriptionId };
  if (old.device_ids) metadata.device_ids = (old.device_ids as string[]).join(',');
  // One recreation per cancelled subscription: a redelivered event, or a retry after a lost answer, gets the first one.
  // One unit per device, as the subscription was bought (`subscribe-devices.ts`): without the quantity
  // card-a made it one unit, and that one unit went on serving every device.
  const quantity = old.device_ids ? (old.device_ids as string[]).length : undefined;
  const created = await deps.providers.cardA.createSubscription({
    customer: old.customer_id,
    price: old.price_id,
    paymentMethod: old.payment_method_id,
    metadata,
    ...(quantity ? { quantity } : {}),
    idempotencyKey: `recover_${subscriptionId}`,
  });
  const now = deps.now();
  const end = typeof created.current_period_end === 'number' ? new Date(created.current_period_end * 1000) : null;
  await tx
    .insertInto('billing_subscriptions')
    .values({
      id: Bun.randomUUIDv7(),
      provider_subscription_id: created.id,
      customer_id: old.customer_id,
      location_id: old.location_id,
      price_id: old.price_id,
      device_ids: old.device_ids === null ? null : JSON.stringify(old.device_ids),
      status: created.status,
      current_period_end: end,
      payment_method_id: old.payment_method_id,
      mandate_id: old.mandate_id,
      created_at: now,
      updated_at: now,
    })
    // The provider's own `created` event may have written it first: then it only gains the mandate.
    .onConflict((oc) => oc.column('provider_subscription_id').doUpdateSet({ payment_method_id: old.payment_method_id, mandate_id: old.mandate_id, updated_at: now }))
    .execute();
  await tx.updateTable('billing_subscriptions').set({ recovered_by: created.id, updated_at: now }).where('id', '=', old.id).execute();
  await deps.redis.del(failedInvoiceKey(subscriptionId));
  deps.log.info('card-a subscription recovered with the SEPA mandate', { subscription_id: subscriptionId, recovered_by: created.id });
  return { subscription_id: created.id, status: created.status, devices: await refreshDevices(tx, old.location_id, now), locationId: old.location_id };
}

/** `invoice.payment_failed` names its subscription's metadata (`subscription_details.metadata`). */
export function invoiceLocation(object: Obj): string | null {
  return str(obj(obj(object.subscription_details).metadata).location_id);
}
