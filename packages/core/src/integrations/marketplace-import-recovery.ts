import { enqueueOutbox, type CentralDb } from '@pos/db';
import { integrationOrderImportJob, jobMessage } from '@pos/kernel/queues/index';
import type { MarketplaceProvider } from '@pos/domain/payments/transaction-values';
import { markWebhook } from '../webhooks/webhook-log.ts';
import type { Logger } from '@pos/kernel';

/**
 * Marketplace order events whose import never finished (spec 3 section 6; decisions "Inbound
 * marketplace orders"). The import job retries for about a minute (5 retries from 2 s) and then gives
 * up; the event stays `pending` in `integration_events` until an import records an outcome, so:
 * - the job's last failed run marks the delivery's webhook log row `failed` (replayable: a replay
 *   re-queues the import), `importGaveUp`;
 * - a redelivery of the event (or a replay) re-queues the import instead of being a duplicate,
 *   `importUnfinished` / `requeueImport`;
 * - the sweep re-queues the events still `pending` after the retry window, for a day; one older is
 *   marked `failed` (with its log row, replayable), `sweepPendingImports`.
 * The import itself is idempotent (one transaction per marketplace order, under a lock), so a second
 * job for an event changes nothing once one has run.
 */

/** The import job's own retries span about this long (2 + 4 + 8 + 16 + 32 s of backoff plus the runs). */
export const IMPORT_RETRY_WINDOW_MS = 2 * 60_000;
/** A redelivery of a pending event younger than this is a duplicate: the job queued by the first delivery is in its first runs. */
export const REDELIVERY_REQUEUE_AFTER_MS = 30_000;
/** How long the sweep keeps re-queuing an event; an event pending longer is marked failed. */
export const IMPORT_SWEEP_WINDOW_MS = 24 * 3600_000;
/** Events re-queued per sweep at most (the next sweep takes the rest). */
export const IMPORT_SWEEP_LIMIT = 500;
/** Statuses of an event whose import has not (successfully) run: `failed` covers an import that found nothing yet. */
const UNFINISHED = ['pending', 'failed'] as const;

const isMarketplace = (p: string): p is MarketplaceProvider => p === 'delivery-a' || p === 'delivery-b';

/**
 * Whether a repeated delivery of marketplace event `eventId` should run again: its import has not
 * finished (`pending` past `REDELIVERY_REQUEUE_AFTER_MS`, or `failed`); a replay (`replay`) needs
 * no wait.
 */
export async function importUnfinished(central: CentralDb, provider: string, eventId: string, now: Date, replay: boolean): Promise<boolean> {
  if (!isMarketplace(provider)) return false;
  const before = new Date(now.getTime() - (replay ? 0 : REDELIVERY_REQUEUE_AFTER_MS));
  const row = await central
    .selectFrom('integration_events')
    .select('id')
    .where('provider', '=', provider)
    .where('event_id', '=', eventId)
    .where('kind', '=', 'order_event')
    .where((eb) => eb.or([eb('status', '=', 'failed'), eb.and([eb('status', '=', 'pending'), eb('created_at', '<=', before)])]))
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Re-queues the import of an event already recorded (inside the caller's transaction) when it has not
 * finished: the event is `pending` again. It keeps pointing at its first delivery's log row, whose
 * failure the import clears once it finishes. Answers whether it did.
 */
export async function requeueImport(trx: CentralDb, e: { provider: MarketplaceProvider; connectionId: string; eventId: string; externalId: string }): Promise<boolean> {
  const row = await trx
    .updateTable('integration_events')
    .set({ status: 'pending' })
    .where('provider', '=', e.provider)
    .where('event_id', '=', e.eventId)
    .where('connection_id', '=', e.connectionId)
    .where('kind', '=', 'order_event')
    .where('status', 'in', UNFINISHED)
    .returning('id')
    .executeTakeFirst();
  if (!row) return false;
  await enqueueOutbox(trx, jobMessage(integrationOrderImportJob, { provider: e.provider, connectionId: e.connectionId, externalOrderId: e.externalId, eventId: e.eventId }));
  return true;
}

/**
 * The import job's last run failed: the event stays `pending` (the sweep re-queues it) and the
 * delivery's webhook log row says `failed`, so the back office sees it and can replay it.
 */
export async function importGaveUp(central: CentralDb, log: Logger, job: { provider: string; connectionId: string; eventId: string }, reason: string): Promise<void> {
  const ev = await central
    .selectFrom('integration_events')
    .select(['webhook_log_id', 'status'])
    .where('provider', '=', job.provider)
    .where('event_id', '=', job.eventId)
    .where('connection_id', '=', job.connectionId)
    .executeTakeFirst();
  if (!ev || ev.status !== 'pending' || !ev.webhook_log_id) return;
  await markWebhook(central, log, ev.webhook_log_id, 'failed', { error: `Order import gave up: ${reason}` });
}

/** An import that recorded its outcome clears the failure a gave-up run left on the delivery's log row. */
export async function importFinished(central: CentralDb, log: Logger, job: { provider: string; connectionId: string; eventId: string }): Promise<void> {
  const ev = await central
    .selectFrom('integration_events')
    .select('webhook_log_id')
    .where('provider', '=', job.provider)
    .where('event_id', '=', job.eventId)
    .where('connection_id', '=', job.connectionId)
    .executeTakeFirst();
  if (!ev?.webhook_log_id) return;
  const row = await central.selectFrom('webhook_logs').select('status').where('id', '=', ev.webhook_log_id).executeTakeFirst();
  if (row?.status === 'failed') await markWebhook(central, log, ev.webhook_log_id, 'processed', { error: null });
}

export interface ImportSweepSummary {
  readonly requeued: number;
  /** Pending past `IMPORT_SWEEP_WINDOW_MS`: marked failed. */
  readonly expired: number;
}

/**
 * Re-queues the marketplace order events still `pending` after the import's retry window (a job that
 * gave up while the marketplace was away, or lost with Redis's data); `claim` says whether an event may
 * be re-queued now (the worker re-queues one at most once in a while). Events pending for longer than
 * a day are marked `failed`, with their webhook log row (replayable). `merchantId`: that merchant's only.
 */
export async function sweepPendingImports(
  central: CentralDb,
  log: Logger,
  now: Date,
  claim: (eventRowId: string) => Promise<boolean>,
  opts: { readonly limit?: number; readonly merchantId?: string } = {},
): Promise<ImportSweepSummary> {
  const oldest = new Date(now.getTime() - IMPORT_SWEEP_WINDOW_MS);
  const expiredRows = await central
    .updateTable('integration_events')
    .set({ status: 'failed' })
    .where('kind', '=', 'order_event')
    .where('provider', 'in', ['delivery-a', 'delivery-b'])
    .where('status', '=', 'pending')
    .where('created_at', '<', oldest)
    .$if(opts.merchantId !== undefined, (q) => q.where('merchant_id', '=', opts.merchantId!))
    .returning(['id', 'webhook_log_id', 'event_id'])
    .execute();
  for (const r of expiredRows) {
    log.error('marketplace order event never imported; marked failed', { event_id: r.event_id, webhook_log_id: r.webhook_log_id });
    if (r.webhook_log_id) await markWebhook(central, log, r.webhook_log_id, 'failed', { error: 'Order import did not complete within a day.' });
  }
  const pending = await central
    .selectFrom('integration_events')
    .select(['id', 'provider', 'connection_id', 'event_id', 'external_id'])
    .where('kind', '=', 'order_event')
    .where('provider', 'in', ['delivery-a', 'delivery-b'])
    .where('status', '=', 'pending')
    .where('external_id', 'is not', null)
    .where('created_at', '>=', oldest)
    .where('created_at', '<', new Date(now.getTime() - IMPORT_RETRY_WINDOW_MS))
    .$if(opts.merchantId !== undefined, (q) => q.where('merchant_id', '=', opts.merchantId!))
    .orderBy('created_at')
    .limit(opts.limit ?? IMPORT_SWEEP_LIMIT)
    .execute();
  let requeued = 0;
  for (const p of pending) {
    if (!isMarketplace(p.provider) || !p.external_id || p.external_id.length > 200 || !(await claim(p.id))) continue;
    await enqueueOutbox(central, jobMessage(integrationOrderImportJob, { provider: p.provider, connectionId: p.connection_id, externalOrderId: p.external_id, eventId: p.event_id }));
    requeued++;
  }
  if (requeued > 0) log.warn('marketplace order imports re-queued', { events: requeued, first: pending[0]?.event_id });
  return { requeued, expired: expiredRows.length };
}
