import { sql } from 'kysely';
import { isUuid } from '@pos/domain/ids';
import { bindTenant } from '@pos/db';
import type { ProviderOutcome } from '@pos/domain';
import { capturePayment } from '../payments/capture-payment.ts';
import { runningProvider } from '../payments/running-provider.ts';
import { acquireLock } from './redis-lock.ts';
import { tenantOfCardAAccount, tenantOfCardABillingCustomer, tenantOfCardACustomer, tenantOfCardAReader, tenantOfCardASubscription, tenantOfLocation, type WebhookMerchant, type WebhookTenant } from './tenant-resolution.ts';
import { storeMandate, syncSubscription } from './card-a-subscriptions.ts';
import { invoiceLocation, invoicePaymentFailed, subscriptionDeleted } from './card-a-invoices.ts';
import { adjustForRefund, backfillApplicationFee, merchantOfPaymentIntent, paymentIntentOfFee, recordCardAPayment } from './card-a-commission.ts';
import { markWebhook, storeWebhook, type WebhookLogStatus } from './webhook-log.ts';
import { REPLAY_OTHER_MERCHANT, replayMismatch, WEBHOOK_PAYMENT_LOCK_MS, type ReplayOptions, type WebhookDeps } from './card-b-webhook.ts';
import { obj, parsePayload, str, type Obj } from './payload.ts';
import { AI_CREDITS_KIND } from '../generation/ai-credit-purchases.ts';
import { aiCreditsTenant, creditFromCardAEvent } from './card-a-ai-credits.ts';
import { accountOfEvent, connectedAccountTarget, refreshConnectedAccount, syncConnectedAccount } from './card-a-accounts.ts';
import { adjustInvoiceForRefund, invoicePaid, invoiceVoided, merchantOfInvoice } from './card-a-invoice-commission.ts';


export interface CardAOutcome {
  readonly status: WebhookLogStatus;
  readonly logId: string | null;
}

/** Payment events acted on here; every event no handler below matches (`payment_method.attached`, spec 3) is stored `ignored` and acknowledged. */
const PAYMENT_EVENTS = new Set(['payment_intent.succeeded', 'payment_intent.payment_failed', 'payment_intent.canceled', 'terminal.reader.action_succeeded', 'terminal.reader.action_failed']);

/** Subscription events that synchronise the local record (spec 3 "Card-a events"); `deleted` has its own handler. */
const SUBSCRIPTION_SYNC = new Set([
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.paused',
  'customer.subscription.resumed',
  'customer.subscription.trial_will_end',
  'customer.subscription.pending_update_applied',
  'customer.subscription.pending_update_expired',
]);

/** Who an event belongs to: the merchant always, the tenant schema and location when the effect is there. */
interface Target {
  readonly merchantId: string;
  readonly tenant: WebhookTenant | null;
  /** The payment intent (fee and refund events). */
  readonly paymentIntent?: string;
  /** The service invoice a refunded charge paid (its commission rows are adjusted). */
  readonly invoice?: string;
  /** The tenant schema of an event about no location (a connected account). */
  readonly tenantDatabase?: string;
}

interface EventCtx {
  readonly type: string;
  readonly object: Obj;
  readonly eventId: string;
  readonly created: number;
  /** The envelope's connected account (an event of a connected account), else null. */
  readonly account: string | null;
}

const withTenant = (t: WebhookTenant | null): Target | null => (t ? { merchantId: t.merchantId, tenant: t } : null);
const withMerchant = (t: WebhookMerchant | null): Target | null => (t ? { merchantId: t.merchantId, tenant: null, tenantDatabase: t.tenantDatabase } : null);

/** Tenant of a subscription-side object: its metadata `location_id`, else its local record or customer. */
async function billingTenant(deps: WebhookDeps, location: string | null, subscriptionId: string | null, customer: string | null): Promise<WebhookTenant | null> {
  if (location) {
    const t = await tenantOfLocation(deps.db, location);
    if (t) return t;
  }
  if (subscriptionId) {
    const t = await tenantOfCardASubscription(deps.db, subscriptionId);
    if (t) return t;
  }
  return customer ? tenantOfCardACustomer(deps.db, customer) : null;
}

/** The events acted on, each with its tenant resolution and its effect (payment events are handled below). */
const HANDLERS: ReadonlyArray<{
  readonly matches: (type: string, object: Obj) => boolean;
  readonly resolve: (deps: WebhookDeps, e: EventCtx) => Promise<Target | null>;
  readonly run: (deps: WebhookDeps, target: Target, e: EventCtx) => Promise<WebhookLogStatus>;
}> = [
  {
    // An AI credits purchase (its checkout completed, or its saved-card charge succeeded): credited once.
    matches: (type, object) => (type === 'checkout.session.completed' || type === 'payment_intent.succeeded') && obj(object.metadata).kind === AI_CREDITS_KIND,
    resolve: async (deps, e) => {
      const t = await aiCreditsTenant(deps.db, obj(e.object.metadata));
      return t ? { merchantId: t.merchantId, tenant: null, tenantDatabase: t.tenantDatabase } : null;
    },
    run: (deps, target, e) => creditFromCardAEvent(deps, target.tenantDatabase!, e),
  },
  {
    matches: (type) => PAYMENT_EVENTS.has(type),
    resolve: async (deps, e) => withTenant(await resolveCardATenant(deps, e.object, e.type.startsWith('terminal.reader.'))),
    run: async (deps, target, e) => {
      await payment(deps, target.tenant!, e.type, e.object, e.eventId);
      return 'processed';
    },
  },
  {
    matches: (type) => SUBSCRIPTION_SYNC.has(type) || type === 'customer.subscription.deleted',
    resolve: async (deps, e) => withTenant(await billingTenant(deps, str(obj(e.object.metadata).location_id), str(e.object.id), null)),
    run: (deps, target, e) =>
      e.type === 'customer.subscription.deleted' ? subscriptionDeleted(deps, target.tenant!, e.object, e.created) : syncSubscription(deps, target.tenant!, e.object, e.created),
  },
  {
    matches: (type) => type === 'setup_intent.succeeded',
    resolve: async (deps, e) => withTenant(await billingTenant(deps, str(obj(e.object.metadata).location_id), null, str(e.object.customer))),
    run: (deps, target, e) => storeMandate(deps, target.tenant!, e.object),
  },
  {
    matches: (type) => type === 'invoice.payment_failed' || type === 'invoice.paid' || type === 'invoice.voided',
    resolve: async (deps, e) => withTenant(await billingTenant(deps, invoiceLocation(e.object), str(e.object.subscription), str(e.object.customer))),
    run: async (deps, target, e) => {
      // The service bills from the platform's account: a connected account's invoice is never one of
      // ours, whatever its subscription metadata names (it would earn commission, or be retried).
      if (e.account) {
        deps.log.warn('card-a invoice event of a connected account: not the service\'s', { event_id: e.eventId, event_type: e.type, account: e.account, invoice_id: str(e.object.id) });
        return 'ignored';
      }
      return e.type === 'invoice.paid'
        ? invoicePaid(deps, target.tenant!, e.object, e.eventId)
        : e.type === 'invoice.voided'
          ? invoiceVoided(deps, target.tenant!, e.object)
          : invoicePaymentFailed(deps, target.tenant!, e.object, e.eventId);
    },
  },
  {
    // A payment profile's connected account: whether it takes charges decides the kiosks' provider.
    matches: (type) => type === 'account.updated',
    resolve: async (deps, e) => {
      const t = await connectedAccountTarget(deps, e.object);
      return t ? { merchantId: t.merchantId, tenant: null, tenantDatabase: t.tenantDatabase } : null;
    },
    run: (deps, target, e) => syncConnectedAccount(deps, { merchantId: target.merchantId, tenantDatabase: target.tenantDatabase! }, e.object),
  },
  {
    // A capability or a person of a payment profile's connected account: the account is refreshed (read at card-a).
    matches: (type) => type === 'capability.updated' || type === 'person.created' || type === 'person.updated',
    resolve: async (deps, e) => {
      const account = accountOfEvent(e.object, e.account);
      return account ? withMerchant(await tenantOfCardAAccount(deps.db, account)) : null;
    },
    run: (deps, target, e) => refreshConnectedAccount(deps, { merchantId: target.merchantId, tenantDatabase: target.tenantDatabase! }, accountOfEvent(e.object, e.account)!),
  },
  {
    // A billing profile's customer (spec 3: customer record changed). Its name, e-mail and payment method
    // are read at card-a wherever they are shown; no local copy exists to refresh.
    matches: (type) => type === 'customer.updated',
    resolve: async (deps, e) => {
      const customer = str(e.object.id);
      return customer ? withMerchant(await tenantOfCardABillingCustomer(deps.db, customer)) : null;
    },
    run: async (deps, target, e) => {
      deps.log.info('card-a billing customer changed: nothing stored locally to update', { customer: str(e.object.id), merchant_id: target.merchantId });
      return 'processed';
    },
  },
  {
    matches: (type) => type === 'application_fee.created',
    resolve: async (deps, e) => {
      const pi = await paymentIntentOfFee(deps, e.object);
      const merchantId = pi ? await merchantOfPaymentIntent(deps, pi) : null;
      // The payment is not on the ledger yet: failed (replayable), not "unresolved".
      if (pi && !merchantId) throw new Error('ledger_row_missing');
      return pi && merchantId ? { merchantId, tenant: null, paymentIntent: pi } : null;
    },
    run: (deps, target, e) => backfillApplicationFee(deps, target.paymentIntent!, e.object, e.eventId),
  },
  {
    matches: (type) => type === 'charge.refunded',
    resolve: async (deps, e) => {
      const pi = str(e.object.payment_intent);
      const merchantId = pi ? await merchantOfPaymentIntent(deps, pi) : null;
      if (pi && merchantId) return { merchantId, tenant: null, paymentIntent: pi };
      // Not a payment's charge: a service invoice's, whose commission rows are adjusted alike.
      const invoice = str(e.object.invoice);
      const invoiceMerchant = invoice ? await merchantOfInvoice(deps, invoice) : null;
      return invoice && invoiceMerchant ? { merchantId: invoiceMerchant, tenant: null, invoice } : null;
    },
    run: (deps, target, e) => (target.invoice ? adjustInvoiceForRefund(deps, target.invoice, e.object, e.eventId) : adjustForRefund(deps, target.paymentIntent!, e.object, e.eventId)),
  },
];

/**
 * A verified card-a event (spec 3 "Card-a events"). Stored first; each event id is claimed once, so a
 * replay changes nothing. Never throws: failures are logged with the event id and stored.
 */
export async function handleCardAWebhook(deps: WebhookDeps, raw: string, countryCode: string, opts: ReplayOptions = {}): Promise<CardAOutcome> {
  const payload = parsePayload(raw);
  const event = obj(payload);
  const eventId = str(event.id);
  const type = str(event.type);
  const stored = opts.replayOf ? { id: opts.replayOf, occurrences: 0 } : await storeWebhook(deps.db, deps.log, { type: 'card_a_webhook', provider: 'card-a', raw, payload, eventType: type, eventId, now: deps.now() });
  const logId = stored?.id ?? null;
  const done = async (status: WebhookLogStatus, extra: { merchantId?: string | null; error?: string | null } = {}): Promise<CardAOutcome> => {
    await markWebhook(deps.db, deps.log, logId ?? undefined, status, extra);
    deps.count?.('card-a', status);
    return { status, logId };
  };
  try {
    if (!eventId || !type) {
      deps.log.warn('card-a webhook is not an event', { webhook_log_id: logId, country: countryCode });
      return await done('failed', { error: 'not_an_event' });
    }
    const object = obj(obj(event.data).object);
    const handler = HANDLERS.find((h) => h.matches(type, object));
    if (!handler) return await done('ignored');
    const ctx: EventCtx = { type, object, eventId, created: typeof event.created === 'number' && Number.isFinite(event.created) ? Math.trunc(event.created) : 0, account: str(event.account) };
    const target = await handler.resolve(deps, ctx);
    if (!target) {
      deps.log.warn('card-a webhook location_not_resolved', { event_id: eventId, event_type: type });
      return await done('location_not_resolved');
    }
    if (replayMismatch(opts, target.merchantId)) return await done('failed', { error: REPLAY_OTHER_MERCHANT });
    const tenant = { merchantId: target.merchantId };
    const claimed = await deps.db
      .insertInto('webhook_claims')
      .values({ provider: 'card-a', event_id: eventId, status: 'claimed', claimed_at: deps.now(), updated_at: deps.now() })
      .onConflict((oc) => oc.columns(['provider', 'event_id']).doNothing())
      .returning('event_id')
      .executeTakeFirst();
    if (!claimed) return await done('duplicate', { merchantId: tenant.merchantId });
    try {
      const status = await handler.run(deps, target, ctx);
      await deps.db.updateTable('webhook_claims').set({ status: 'processed', updated_at: deps.now() }).where('provider', '=', 'card-a').where('event_id', '=', eventId).execute();
      return await done(status, { merchantId: tenant.merchantId });
    } catch (e) {
      // The claim is released so a replay from the back office can run it again.
      await deps.db.deleteFrom('webhook_claims').where('provider', '=', 'card-a').where('event_id', '=', eventId).execute().catch(() => undefined);
      throw Object.assign(e instanceof Error ? e : new Error(String(e)), { merchantId: tenant.merchantId });
    }
  } catch (e) {
    deps.log.error('card-a webhook processing failed', { event_id: eventId, webhook_log_id: logId, err: e });
    const merchantId = (e as { merchantId?: string }).merchantId;
    return done('failed', { error: e instanceof Error ? e.message : String(e), ...(merchantId ? { merchantId } : {}) });
  }
}

/** Spec 3 section 6: payment-intent metadata `location_id`, or the reader's device. */
async function resolveCardATenant(deps: WebhookDeps, object: Obj, reader: boolean): Promise<WebhookTenant | null> {
  if (reader) {
    const id = str(object.id);
    return id ? tenantOfCardAReader(deps.db, id) : null;
  }
  const location = str(obj(object.metadata).location_id);
  return location ? tenantOfLocation(deps.db, location) : null;
}

async function payment(deps: WebhookDeps, tenant: WebhookTenant, type: string, object: Obj, eventId: string): Promise<void> {
  const reader = type.startsWith('terminal.reader.');
  const intentId = reader ? str(obj(obj(object.action).process_payment_intent).payment_intent) : str(object.id);
  if (!intentId) throw new Error('payment_intent_missing');
  const tdb = bindTenant(deps.db, tenant.tenantDatabase);
  const byIntent = await tdb
    .selectFrom('transactions')
    .selectAll()
    .where(sql<string>`payment_snapshot->>'id'`, '=', intentId)
    .where('location_id', '=', tenant.locationId)
    .executeTakeFirst();
  // A hosted checkout session's intent is born when the customer pays, so the row may not know it yet:
  // its metadata (`payment_intent_data[metadata]`) names the transaction, whose session has no intent stored.
  const metaTransaction = reader || byIntent ? null : str(obj(object.metadata).transaction_id);
  const t =
    byIntent ??
    (metaTransaction && isUuid(metaTransaction)
      ? await tdb
          .selectFrom('transactions')
          .selectAll()
          .where('id', '=', metaTransaction)
          .where('location_id', '=', tenant.locationId)
          .where(sql<string>`payment_snapshot->>'sessionId'`, 'is not', null)
          .where(sql<string>`payment_snapshot->>'id'`, 'is', null)
          .executeTakeFirst()
      : undefined);
  // The provider the payment runs on: a register-b merchant's online order stamped card-b pays by card-a.
  if (!t || runningProvider(t) !== 'card-a') {
    deps.log.warn('transaction not found during a webhook', { provider: 'card-a', event_id: eventId, merchant_id: tenant.merchantId });
    throw new Error('transaction_not_found');
  }
  const lock = await acquireLock(deps.redis, `payment_processing_${t.channel === 'kiosk' ? 'kiosk' : 'online'}_${t.idempotency_key}`, WEBHOOK_PAYMENT_LOCK_MS, WEBHOOK_PAYMENT_LOCK_MS, deps.log);
  try {
    const capture = { tdb, tenantDatabase: tenant.tenantDatabase, redis: deps.redis, providers: deps.providers, log: deps.log, now: deps.now };
    if (type === 'payment_intent.succeeded' || type === 'terminal.reader.action_succeeded') {
      // A success (online, or the kiosk's reader) is verified with the provider (poll), never believed
      // from the payload alone: the capture runs with what card-a says of the payment intent.
      const r = await capturePayment(capture, t.id, { kind: 'poll', via: 'webhook' });
      if (r.status === 'Complete') await recordCardAPayment(deps, tenant.merchantId, intentId);
      return;
    }
    // A failure or a cancel takes no money: the payload is enough to move the order on.
    const outcome: ProviderOutcome = type === 'payment_intent.canceled' ? 'aborted' : 'failed';
    const action = obj(object.action);
    const data: Obj = { webhook_event: eventId, ...(str(action.failure_code) ? { failure_code: action.failure_code } : {}) };
    // About this intent: a retry that put another intent on the reader meanwhile is not cancelled by it.
    // Found by its metadata, the intent is the one of the session the row runs.
    const about = byIntent ? { id: intentId } : { sessionId: t.payment_snapshot.sessionId as string };
    const r = await capturePayment(capture, t.id, { kind: 'webhook', outcome, data, session: about });
    // Whoever captured (this webhook or the kiosk's poll), the paid payment has its ledger row.
    if (r.status === 'Complete') await recordCardAPayment(deps, tenant.merchantId, intentId);
  } finally {
    await lock.release();
  }
}
