import { sql } from 'kysely';
import { bindTenant, type TenantDb } from '@pos/db';
import { coversTotal, type ProviderOutcome } from '@pos/domain';
import { capturePayment } from '../payments/capture-payment.ts';
import { lostCheckoutStart } from '../payments/platform-a-checkout.ts';
import type { TransactionRow } from '../payments/transaction-records.ts';
import { acquireLock } from './redis-lock.ts';
import { tenantOfPlatformADevice, tenantOfPlatformALocation, tenantOfPlatformAMerchant, type WebhookTenant } from './tenant-resolution.ts';
import { markWebhook, storeWebhook, type WebhookLogStatus } from './webhook-log.ts';
import { REPLAY_OTHER_MERCHANT, replayMismatch, WEBHOOK_PAYMENT_LOCK_MS, type ReplayOptions, type WebhookDeps } from './card-b-webhook.ts';
import { obj, parsePayload, str, type Obj } from './payload.ts';
import { connectionsByRef } from '../integrations/connections.ts';
import { oneMerchant } from './integration-webhook.ts';
import { isUuid } from '@pos/domain/ids';


export interface PlatformAOutcome {
  readonly status: WebhookLogStatus;
  readonly logId: string | null;
}

const CHECKOUT_EVENTS = new Set(['terminal.checkout.created', 'terminal.checkout.updated']);

/**
 * Tenant of a platform-a event (spec 3 section 6: the merchant or location reference of the payload):
 * the payload's location id, else the checkout's terminal device, else the merchant id, each matched
 * against what the tenant stored; none, or more than one tenant, is unresolved.
 */
async function resolvePlatformATenant(deps: WebhookDeps, event: Obj, checkout: Obj): Promise<WebhookTenant | null> {
  const location = str(checkout.location_id) ?? str(event.location_id);
  if (location) {
    const t = await tenantOfPlatformALocation(deps.db, location);
    if (t) return t;
  }
  const device = str(obj(checkout.device_options).device_id);
  if (device) {
    const t = await tenantOfPlatformADevice(deps.db, device);
    if (t) return t;
  }
  const merchant = str(event.merchant_id);
  if (!merchant) return null;
  const t = await tenantOfPlatformAMerchant(deps.db, merchant);
  if (t) return t;
  // The account connected through the OAuth callback (integration connection keyed by merchant id).
  const connected = oneMerchant(await connectionsByRef(deps.db, 'platform-a', { externalRef: merchant }));
  const c = connected?.find((x) => x.locationId);
  return c ? { merchantId: c.merchantId, tenantDatabase: c.tenantDatabase, locationId: c.locationId! } : null;
}

/**
 * A verified platform-a event: stored, claimed once by `event_id`, terminal checkout status changes
 * applied to the kiosk transaction (`reference_id`, matching the checkout id it started). Other event
 * types are stored and acknowledged. Never throws.
 */
export async function handlePlatformAWebhook(deps: WebhookDeps, raw: string, opts: ReplayOptions = {}): Promise<PlatformAOutcome> {
  const payload = parsePayload(raw);
  const event = obj(payload);
  const eventId = str(event.event_id);
  const type = str(event.type);
  const stored = opts.replayOf ? { id: opts.replayOf, occurrences: 0 } : await storeWebhook(deps.db, deps.log, { type: 'platform_a_webhook', provider: 'platform-a', raw, payload, eventType: type, eventId, now: deps.now() });
  const logId = stored?.id ?? null;
  let merchantId: string | undefined;
  const done = async (status: WebhookLogStatus, error?: string): Promise<PlatformAOutcome> => {
    await markWebhook(deps.db, deps.log, logId ?? undefined, status, { ...(merchantId ? { merchantId } : {}), ...(error ? { error } : {}) });
    deps.count?.('platform-a', status);
    return { status, logId };
  };
  try {
    if (!eventId || !type) {
      deps.log.warn('platform-a webhook is not an event', { webhook_log_id: logId });
      return await done('failed', 'not_an_event');
    }
    if (!CHECKOUT_EVENTS.has(type)) return await done('ignored');
    const checkout = obj(obj(obj(event.data).object).checkout);
    const tenant = await resolvePlatformATenant(deps, event, checkout);
    if (!tenant) {
      deps.log.warn('platform-a webhook location_not_resolved', { event_id: eventId, event_type: type });
      return await done('location_not_resolved');
    }
    if (replayMismatch(opts, tenant.merchantId)) return await done('failed', REPLAY_OTHER_MERCHANT);
    merchantId = tenant.merchantId;
    const status = str(checkout.status);
    const outcome: ProviderOutcome | null =
      status === 'COMPLETED' ? 'succeeded' : status === 'CANCELED' ? (checkout.cancel_reason === 'SELLER_CANCELED' ? 'aborted' : 'failed') : null;
    if (!outcome) return await done('ignored');
    const claimed = await deps.db
      .insertInto('webhook_claims')
      .values({ provider: 'platform-a', event_id: eventId, status: 'claimed', claimed_at: deps.now(), updated_at: deps.now() })
      .onConflict((oc) => oc.columns(['provider', 'event_id']).doNothing())
      .returning('event_id')
      .executeTakeFirst();
    if (!claimed) return await done('duplicate');
    try {
      await applyCheckout(deps, tenant, checkout, outcome, eventId);
      await deps.db.updateTable('webhook_claims').set({ status: 'processed', updated_at: deps.now() }).where('provider', '=', 'platform-a').where('event_id', '=', eventId).execute();
      return await done('processed');
    } catch (e) {
      await deps.db.deleteFrom('webhook_claims').where('provider', '=', 'platform-a').where('event_id', '=', eventId).execute().catch(() => undefined);
      throw e;
    }
  } catch (e) {
    deps.log.error('platform-a webhook processing failed', { event_id: eventId, webhook_log_id: logId, err: e });
    return done('failed', e instanceof Error ? e.message : String(e));
  }
}

/** A platform-a money object's amount (`{amount, currency}`, integer cents), or null. */
function centsOf(money: unknown): number | null {
  const a = money && typeof money === 'object' ? (money as Obj).amount : undefined;
  return typeof a === 'number' && Number.isSafeInteger(a) && a >= 0 ? a : null;
}

/**
 * A kiosk start records its checkout before asking for it, and learns the checkout's id from the answer
 * (start-kiosk-payment.ts). When that answer was lost, a signed event of a **completed** checkout whose
 * `reference_id` is the transaction and whose device is the start's is its payment: money taken for
 * this order, captured (money wins). Nothing is asked of the provider on the way (a call that failed
 * would lose the event: it is answered 2xx and not sent again), and no other outcome is adopted (a late
 * event of an earlier key's checkout, cancelled or timed out, would leave the running one unknown).
 */
async function adoptCheckout(tdb: TenantDb, transactionId: string, checkout: Obj, outcome: ProviderOutcome): Promise<TransactionRow | undefined> {
  const deviceId = str(obj(checkout.device_options).device_id);
  if (outcome !== 'succeeded' || !deviceId) return undefined;
  const t = await tdb.selectFrom('transactions').selectAll().where('id', '=', transactionId).executeTakeFirst();
  const lost = t ? lostCheckoutStart(t) : null;
  // Cancelled or Unpaid too: money taken wins (`paymentTransition`), and nothing else would find it.
  return t && (t.status === 'Awaiting Payment' || t.status === 'Cancelled' || t.status === 'Unpaid') && lost?.deviceId === deviceId ? t : undefined;
}

async function applyCheckout(deps: WebhookDeps, tenant: WebhookTenant, checkout: Obj, outcome: ProviderOutcome, eventId: string): Promise<void> {
  const checkoutId = str(checkout.id);
  const reference = str(checkout.reference_id);
  const tdb = bindTenant(deps.db, tenant.tenantDatabase);
  const t =
    checkoutId && reference && isUuid(reference)
      ? ((await tdb.selectFrom('transactions').selectAll().where('id', '=', reference).where(sql<string>`payment_snapshot->>'checkout_id'`, '=', checkoutId).executeTakeFirst()) ??
        (await adoptCheckout(tdb, reference, checkout, outcome)))
      : undefined;
  if (!t) {
    deps.log.warn('transaction not found during a webhook', { provider: 'platform-a', event_id: eventId, merchant_id: tenant.merchantId });
    throw new Error('transaction_not_found');
  }
  // A completed checkout is never taken for less than the order's total (amounts in cents; a tip taken
  // at the terminal comes as `tip_money` beside it): an event for less is not this order's payment.
  const amount = centsOf(checkout.amount_money);
  const tip = centsOf(checkout.tip_money);
  if (outcome === 'succeeded' || outcome === 'authorised') {
    if (!coversTotal(amount, tip, t.total)) {
      deps.log.error('platform-a checkout amount below the order total; not captured', { event_id: eventId, transaction_id: t.id, amount, total: t.total });
      throw new Error('amount_mismatch');
    }
    // Cents of another currency are not this order's money.
    const currency = str(obj(checkout.amount_money).currency);
    if (currency === null || currency.toUpperCase() !== deps.providers.currency.toUpperCase()) {
      deps.log.error('platform-a checkout currency is not the order\'s; not captured', { event_id: eventId, transaction_id: t.id, currency });
      throw new Error('currency_mismatch');
    }
  }
  const lock = await acquireLock(deps.redis, `payment_processing_${t.channel === 'kiosk' ? 'kiosk' : 'online'}_${t.idempotency_key}`, WEBHOOK_PAYMENT_LOCK_MS, WEBHOOK_PAYMENT_LOCK_MS, deps.log);
  try {
    const capture = { tdb, tenantDatabase: tenant.tenantDatabase, redis: deps.redis, providers: deps.providers, log: deps.log, now: deps.now };
    const paymentIds = Array.isArray(checkout.payment_ids) ? checkout.payment_ids.filter((x): x is string => typeof x === 'string').slice(0, 10) : [];
    await capturePayment(capture, t.id, {
      kind: 'webhook',
      outcome,
      // A failure of this checkout says nothing of a later one a retry started.
      session: { checkout_id: checkoutId },
      // `checkout_id`: an adopted start learns its checkout with the capture.
      data: { checkout_id: checkoutId, checkout_status: str(checkout.status), payment_ids: paymentIds, ...(amount !== null ? { amount } : {}), ...(amount !== null && outcome === 'succeeded' ? { captured_amount: amount + (tip ?? 0) } : {}), ...(str(checkout.cancel_reason) ? { cancel_reason: checkout.cancel_reason } : {}), webhook_event: eventId },
    });
  } finally {
    await lock.release();
  }
}
