import { sql } from 'kysely';
import { bindTenant } from '@pos/db';
import type { ProviderOutcome } from '@pos/domain';
import { capturePayment } from '../payments/capture-payment.ts';
import { acquireLock } from './redis-lock.ts';
import { tenantOfCardAReader, tenantOfLocation, type WebhookTenant } from './tenant-resolution.ts';
import { markWebhook, storeWebhook, type WebhookLogStatus } from './webhook-log.ts';
import { WEBHOOK_PAYMENT_LOCK_MS, type ReplayOptions, type WebhookDeps } from './card-b-webhook.ts';
import { obj, parsePayload, str, type Obj } from './payload.ts';


export interface CardAOutcome {
  readonly status: WebhookLogStatus;
  readonly logId: string | null;
}

/** Payment events acted on here; every other event is stored and acknowledged. */
const PAYMENT_EVENTS = new Set(['payment_intent.succeeded', 'payment_intent.payment_failed', 'payment_intent.canceled', 'terminal.reader.action_succeeded', 'terminal.reader.action_failed']);

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
    if (!PAYMENT_EVENTS.has(type)) return await done('ignored');
    const object = obj(obj(event.data).object);
    const reader = type.startsWith('terminal.reader.');
    const tenant = await resolveCardATenant(deps, object, reader);
    if (!tenant) {
      deps.log.warn('card-a webhook location_not_resolved', { event_id: eventId, event_type: type });
      return await done('location_not_resolved');
    }
    const claimed = await deps.db
      .insertInto('webhook_claims')
      .values({ provider: 'card-a', event_id: eventId, status: 'claimed', claimed_at: deps.now(), updated_at: deps.now() })
      .onConflict((oc) => oc.columns(['provider', 'event_id']).doNothing())
      .returning('event_id')
      .executeTakeFirst();
    if (!claimed) return await done('duplicate', { merchantId: tenant.merchantId });
    try {
      await payment(deps, tenant, type, object, eventId);
      await deps.db.updateTable('webhook_claims').set({ status: 'processed', updated_at: deps.now() }).where('provider', '=', 'card-a').where('event_id', '=', eventId).execute();
      return await done('processed', { merchantId: tenant.merchantId });
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
  const t = await tdb
    .selectFrom('transactions')
    .selectAll()
    .where(sql<string>`payment_snapshot->>'id'`, '=', intentId)
    .where('location_id', '=', tenant.locationId)
    .executeTakeFirst();
  if (!t || t.payment_provider !== 'card-a') {
    deps.log.warn('transaction not found during a webhook', { provider: 'card-a', event_id: eventId, merchant_id: tenant.merchantId });
    throw new Error('transaction_not_found');
  }
  const lock = await acquireLock(deps.redis, `payment_processing_${t.channel === 'kiosk' ? 'kiosk' : 'online'}_${t.idempotency_key}`, WEBHOOK_PAYMENT_LOCK_MS, WEBHOOK_PAYMENT_LOCK_MS, deps.log);
  try {
    const capture = { tdb, tenantDatabase: tenant.tenantDatabase, redis: deps.redis, providers: deps.providers, log: deps.log, now: deps.now };
    if (type === 'payment_intent.succeeded') {
      // Online payment: verified with the provider (poll), never believed from the payload alone.
      await capturePayment(capture, t.id, { kind: 'poll' });
      return;
    }
    const outcome: ProviderOutcome =
      type === 'terminal.reader.action_succeeded' ? 'succeeded' : type === 'payment_intent.canceled' ? 'aborted' : 'failed';
    const action = obj(object.action);
    const data: Obj = { webhook_event: eventId, ...(str(action.failure_code) ? { failure_code: action.failure_code } : {}) };
    await capturePayment(capture, t.id, { kind: 'webhook', outcome, data });
  } finally {
    await lock.release();
  }
}
