import { EXTERNAL_ID_MAX, enqueueOutbox } from '@pos/db';
import { integrationOrderImportJob, jobMessage } from '@pos/kernel/queues/index';
import { connectionsByRef, locationExists, type ConnectionTarget } from '../integrations/connections.ts';
import { REPLAY_OTHER_MERCHANT, replayMismatch, type ReplayOptions, type WebhookDeps } from './card-b-webhook.ts';
import { obj, parsePayload, type Obj } from './payload.ts';
import { markWebhook, storeWebhook, type WebhookLogStatus } from './webhook-log.ts';
import { importUnfinished, requeueImport } from '../integrations/marketplace-import-recovery.ts';

/**
 * The marketplace, shop, register and CRM webhooks (spec 3 section 4 "Inbound webhook and callback
 * routes", section 6 "Other providers"; issue 13). After the route verified the raw bytes, one
 * handler per provider description: store the delivery in the central webhook log, resolve the tenant
 * through the integration connection the event names (never guessed: none, or more than one merchant,
 * is `location_not_resolved`), claim the provider's event id once (a repeat is `duplicate`), then do
 * what is within reach before the integrations issue (17) builds import and sync:
 * - `order_event`: recorded once in `integration_events` (`pending`); a delivery-a / delivery-b order
 *   event also writes its `integration.order-import` job to the outbox in the same commit (the worker
 *   makes the order a transaction, `integrations/marketplace-orders.ts`); delivered again or replayed
 *   while its import has not finished, the job is queued again (`marketplace-import-recovery.ts`);
 * - `catalog_changed`: the connection's `menu_sync_requested_at` is set (and the event recorded);
 * - anything else is stored as `ignored`.
 * Never throws: an internal error is logged with the event id and stored as `failed`.
 */
export type IntegrationEffect = 'order_event' | 'catalog_changed';

/** What the route read from the request besides the body (headers, path); stored in `fields` for replays. */
export type WebhookMeta = Readonly<Record<string, string | null>>;

export interface IntegrationWebhookSpec {
  /** Provider word (`shop-a`, `delivery-a`, ...), also the claim namespace. */
  readonly provider: string;
  /** Log type (`shop_a_webhook`, ...). */
  readonly type: string;
  /** The provider's event id; the content hash when the provider sends none (its retries repeat the body). */
  eventId(payload: Obj, meta: WebhookMeta, raw: string): string | null;
  eventType(payload: Obj, meta: WebhookMeta): string | null;
  /** The connection reference the event names; null when the provider's events belong to no tenant (CRM). */
  reference(payload: Obj, meta: WebhookMeta): { externalRef?: string | null; groupRef?: string | null } | null;
  /** What the event asks for; null: stored and acknowledged only. */
  effect(eventType: string, meta: WebhookMeta): IntegrationEffect | null;
  /** The external record the event is about (an order id), recorded with it. */
  externalId?(payload: Obj, meta: WebhookMeta): string | null;
}

export interface IntegrationOutcome {
  readonly status: WebhookLogStatus;
  readonly logId: string | null;
}

/** One merchant or none: two merchants answering the same reference is ambiguous, never guessed. */
export function oneMerchant(connections: readonly ConnectionTarget[]): ConnectionTarget[] | null {
  if (!connections.length) return null;
  return connections.every((c) => c.merchantId === connections[0]!.merchantId) ? [...connections] : null;
}

export async function handleIntegrationWebhook(deps: WebhookDeps, spec: IntegrationWebhookSpec, raw: string, meta: WebhookMeta, opts: ReplayOptions = {}): Promise<IntegrationOutcome> {
  const payload = parsePayload(raw);
  const body = obj(payload);
  const isObject = payload !== null && typeof payload === 'object' && !Array.isArray(payload);
  const eventId = isObject ? spec.eventId(body, meta, raw) : null;
  const eventType = isObject ? spec.eventType(body, meta) : null;
  const stored = opts.replayOf
    ? { id: opts.replayOf, occurrences: 0 }
    : await storeWebhook(deps.db, deps.log, { type: spec.type, provider: spec.provider, raw, payload, eventType, eventId, fields: { ...meta }, now: deps.now() });
  const logId = stored?.id ?? null;
  let merchantId: string | undefined;
  const done = async (status: WebhookLogStatus, error?: string): Promise<IntegrationOutcome> => {
    await markWebhook(deps.db, deps.log, logId ?? undefined, status, { ...(merchantId ? { merchantId } : {}), ...(error ? { error } : {}) });
    deps.count?.(spec.provider, status);
    return { status, logId };
  };
  try {
    if (payload === null) return await done('failed', 'not_json');
    // Ids past 200 characters are no provider's (and would not fit the claim index).
    if (!isObject || !eventId || !eventType || eventId.length > 200) {
      deps.log.warn(`${spec.provider} webhook is not an event`, { webhook_log_id: logId });
      return await done('failed', 'not_an_event');
    }
    const ref = spec.reference(body, meta);
    if (ref === null) return await claimThen(deps, spec.provider, eventId, done, async () => 'ignored');
    const targets = oneMerchant(await connectionsByRef(deps.db, spec.provider, ref));
    if (!targets) {
      deps.log.warn(`${spec.provider} webhook location_not_resolved`, { event_id: eventId, event_type: eventType });
      return await done('location_not_resolved');
    }
    if (replayMismatch(opts, targets[0]!.merchantId)) return await done('failed', REPLAY_OTHER_MERCHANT);
    merchantId = targets[0]!.merchantId;
    const effect = spec.effect(eventType, meta);
    const active = targets.filter((t) => t.status === 'active');
    // A store the location let go (disabled, not deleted) still sending events: the marketplace was not
    // told, or did not listen. Logged loudly: its orders reach no kitchen.
    if (effect && !active.length) deps.log.warn(`${spec.provider} webhook for a disabled connection ignored`, { event_id: eventId, event_type: eventType, reference: ref });
    if (!effect || !active.length) return await claimThen(deps, spec.provider, eventId, done, async () => 'ignored');
    // A marketplace order event delivered again (or replayed) whose import never finished runs again:
    // its import is re-queued instead of the delivery being a duplicate (the import is idempotent).
    const reopen = effect === 'order_event' ? () => importUnfinished(deps.db, spec.provider, eventId, deps.now(), opts.replayOf !== undefined) : undefined;
    return await claimThen(
      deps,
      spec.provider,
      eventId,
      done,
      async () => {
        await apply(deps, spec, active, effect, { eventId, eventType, externalId: spec.externalId?.(body, meta) ?? null, logId });
        return 'processed';
      },
      reopen,
    );
  } catch (e) {
    deps.log.error(`${spec.provider} webhook processing failed`, { event_id: eventId, webhook_log_id: logId, err: e });
    return done('failed', e instanceof Error ? e.message : String(e));
  }
}

/**
 * Claims the event once (`webhook_claims`); a failure releases the claim so a replay can run it again.
 * An event claimed before runs again only when `reopen` says its work is unfinished.
 */
async function claimThen(
  deps: WebhookDeps,
  provider: string,
  eventId: string,
  done: (status: WebhookLogStatus, error?: string) => Promise<IntegrationOutcome>,
  work: () => Promise<WebhookLogStatus>,
  reopen?: () => Promise<boolean>,
): Promise<IntegrationOutcome> {
  const claimed = await deps.db
    .insertInto('webhook_claims')
    .values({ provider, event_id: eventId, status: 'claimed', claimed_at: deps.now(), updated_at: deps.now() })
    .onConflict((oc) => oc.columns(['provider', 'event_id']).doNothing())
    .returning('event_id')
    .executeTakeFirst();
  if (!claimed && !(reopen && (await reopen()))) return done('duplicate');
  let status: WebhookLogStatus;
  try {
    status = await work();
  } catch (e) {
    await deps.db.deleteFrom('webhook_claims').where('provider', '=', provider).where('event_id', '=', eventId).execute().catch(() => undefined);
    throw e;
  }
  await deps.db.updateTable('webhook_claims').set({ status: 'processed', updated_at: deps.now() }).where('provider', '=', provider).where('event_id', '=', eventId).execute();
  return done(status);
}

async function apply(
  deps: WebhookDeps,
  spec: IntegrationWebhookSpec,
  targets: readonly ConnectionTarget[],
  effect: IntegrationEffect,
  e: { eventId: string; eventType: string; externalId: string | null; logId: string | null },
): Promise<void> {
  // A connection pointing at a location its merchant removed: failed (and replayable once remapped).
  for (const t of targets) {
    if (t.locationId && !(await locationExists(deps.db, t.tenantDatabase, t.locationId))) throw new Error('location_not_found');
  }
  const now = deps.now();
  await deps.db.transaction().execute(async (trx) => {
    for (const t of targets) {
      const recorded = await trx
        .insertInto('integration_events')
        .values({
          id: Bun.randomUUIDv7(),
          connection_id: t.id,
          merchant_id: t.merchantId,
          location_id: t.locationId,
          provider: spec.provider,
          kind: effect,
          event_type: e.eventType.slice(0, 200),
          event_id: e.eventId,
          // An id past the column's bound is not one we can act on (no import below): not kept, the event still is.
          external_id: e.externalId && e.externalId.length <= EXTERNAL_ID_MAX ? e.externalId : null,
          webhook_log_id: e.logId,
          created_at: now,
        })
        .onConflict((oc) => oc.columns(['provider', 'event_id', 'connection_id']).doNothing())
        .returning('id')
        .executeTakeFirst();
      // A marketplace order event becomes an import job in the same commit (issue 17): the worker reads
      // the order through the marketplace's client and makes it one transaction here.
      if (effect === 'order_event' && e.externalId && e.externalId.length <= 200 && isMarketplace(spec.provider)) {
        if (recorded) await enqueueOutbox(trx, jobMessage(integrationOrderImportJob, { provider: spec.provider, connectionId: t.id, externalOrderId: e.externalId, eventId: e.eventId }));
        // Recorded by an earlier delivery and not imported yet (its job gave up or was lost): queued again.
        else await requeueImport(trx, { provider: spec.provider, connectionId: t.id, eventId: e.eventId, externalId: e.externalId });
      }
      await trx
        .updateTable('integration_connections')
        .set({ last_event_at: now, updated_at: now, ...(effect === 'catalog_changed' ? { menu_sync_requested_at: now } : {}) })
        .where('id', '=', t.id)
        .execute();
    }
  });
}

const isMarketplace = (p: string): p is 'delivery-a' | 'delivery-b' => p === 'delivery-a' || p === 'delivery-b';

/** The meta stored with a row (for a replay). */
export function metaOf(fields: unknown): WebhookMeta {
  const f = obj(fields);
  return Object.fromEntries(Object.entries(f).map(([k, v]) => [k, typeof v === 'string' ? v : null]));
}
