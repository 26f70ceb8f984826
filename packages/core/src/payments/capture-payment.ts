import type Redis from 'ioredis';
import { moveSoldStock, stockSoldDetail } from './sold-stock.ts';
import { sql } from 'kysely';
import { CAPTURE_ATTEMPTS, enqueueOutbox, withWriteRetry, type TenantDb } from '@pos/db';
import { errors, type Logger } from '@pos/kernel';
import { jobMessage, paymentPostCaptureJob } from '@pos/kernel/queues/index';
import { capturedTotals, paymentTransition, type PaymentEvent, type PaymentStatus, type ProviderOutcome } from '@pos/domain';
import { acquireCaptureLock } from './capture-lock.ts';
import type { PaymentProviders } from './payment-providers.ts';
import { pollProvider } from './provider-outcome.ts';
import { isCurrentSession, sessionRefOf, type SessionRef } from './payment-session.ts';
import { loadLines, loadTransaction, nextCounter } from './transaction-records.ts';
import { publishPaymentStatus } from './payment-events.ts';
import { expireLoyaltyToken } from '../customers/loyalty-tokens.ts';
import { bindTableSessionOnCapture } from '../table-qr/table-sessions.ts';
import { capacitySlotOf } from '@pos/domain';
import { runningProvider } from './running-provider.ts';

export interface CaptureDeps {
  readonly tdb: TenantDb;
  readonly tenantDatabase: string;
  readonly redis: Redis;
  /** Asked by a poll-triggered capture only. */
  readonly providers?: PaymentProviders;
  readonly log: Logger;
  readonly now: () => Date;
  /** Captures slower than this are logged with a warning (spec 3 section 8: 2 s). */
  readonly slowMs?: number;
}

/** How the capture was triggered (spec 3 "Capture rules" 2). */
export type CaptureTrigger =
  /**
   * Poll-triggered (details route, verify): the provider is asked. `via: 'webhook'` when a provider's
   * event set it off (the event is not believed, the provider is asked; the trace says webhook).
   * `session`: the snapshot of an earlier session of the order to ask about instead of the one it runs
   * now (a cancel that finds an aborted key paid).
   */
  | { readonly kind: 'poll'; readonly via?: 'webhook'; readonly session?: Record<string, unknown> }
  /** Webhook-triggered: the provider's data comes with it. */
  /**
   * Webhook-triggered: the provider's data comes with it. `session`: the snapshot fields the event was
   * matched on; an outcome that takes no money is ignored once the transaction runs another session.
   */
  | { readonly kind: 'webhook'; readonly outcome: ProviderOutcome; readonly data: Record<string, unknown>; readonly session?: SessionRef }
  | { readonly kind: 'free' }
  /** A marketplace order: paid by the marketplace, nothing to ask a payment provider. */
  | { readonly kind: 'marketplace'; readonly data: Record<string, unknown> }
  | { readonly kind: 'auto_success' };

export interface CaptureResult {
  readonly status: PaymentStatus;
  /** True only for the one call that moved the transaction to Complete. */
  readonly completed: boolean;
  /** True when this call wrote a status change. */
  readonly changed: boolean;
}

/**
 * Capture exactly once (spec 3 "Capture rules"): a Redis lock named from the idempotency key for
 * 20 s, the provider asked outside any database transaction, then one database transaction (retried
 * up to 5 times on write conflict) that locks the row, checks the state and applies the transition.
 * On Complete it takes the receipt number, sets the order status `Queued`, decrements stock, expires
 * the loyalty token, records the step and writes the post-capture job to the outbox, all in the same
 * commit. A provider that took more than the total (a tip added on the terminal) has the excess booked
 * as tip in that commit (`tip_amount` and `total`, `capturedTotals`). A second capture (webhook after poll, poll after webhook, two workers) changes nothing and
 * answers success. The payment status is published on the real-time channel after the commit.
 */
export async function capturePayment(deps: CaptureDeps, transactionId: string, trigger: CaptureTrigger): Promise<CaptureResult> {
  const started = Date.now();
  const first = await loadTransaction(deps.tdb, transactionId);
  // "Complete | verify again | webhook already won the race": success without a provider call.
  if (first.status === 'Complete') return { status: 'Complete', completed: false, changed: false };

  const lock = await acquireCaptureLock(deps.redis, first.idempotency_key, deps.log);
  try {
    const current = await loadTransaction(deps.tdb, transactionId);
    if (current.status === 'Complete') return { status: 'Complete', completed: false, changed: false };

    let event: PaymentEvent;
    let providerData: Record<string, unknown> = {};
    // The session the outcome is about: a poll asks about the session the row runs now; a webhook names its own.
    let about: SessionRef | undefined;
    switch (trigger.kind) {
      case 'free':
        event = { kind: 'capture_free' };
        break;
      case 'auto_success':
        event = { kind: 'capture_auto_success' };
        break;
      case 'marketplace':
        event = { kind: 'capture_marketplace' };
        providerData = trigger.data;
        break;
      case 'webhook':
        event = { kind: 'capture_provider', outcome: trigger.outcome };
        providerData = trigger.data;
        if (trigger.session) about = trigger.session;
        break;
      case 'poll': {
        if (!deps.providers) throw new Error('a poll-triggered capture needs the payment providers');
        const asked = trigger.session ?? current.payment_snapshot;
        const report = await pollProvider(deps.providers, runningProvider(current), asked, deps.now());
        event = { kind: 'capture_provider', outcome: report.outcome };
        // An earlier session found paid: the snapshot then names the session the money was taken in.
        providerData = trigger.session ? { ...sessionRefOf({ payment_snapshot: asked }), ...report.snapshot } : report.snapshot;
        about = sessionRefOf({ payment_snapshot: asked });
        break;
      }
    }

    const result = await withWriteRetry(
      () =>
        deps.tdb.transaction().execute(async (tx) => {
          const t = await tx.selectFrom('transactions').selectAll().where('id', '=', transactionId).forUpdate().executeTakeFirstOrThrow();
          const decision = paymentTransition(t.status, event);
          if (decision.kind === 'refused') throw errors.conflict(decision.message, { reason: decision.reason });
          if (decision.kind === 'unchanged') return { status: t.status, completed: false, changed: false, stockChanged: false };
          // A decline, timeout or cancel of a session the transaction has left (a retry started another
          // meanwhile) says nothing of the session running now. Money taken is captured whatever the session.
          if (about && !decision.effects.completes && !isCurrentSession(about, t)) {
            deps.log.info('payment outcome of an earlier session; ignored', { transaction_id: t.id, outcome: event.kind === 'capture_provider' ? event.outcome : null });
            return { status: t.status, completed: false, changed: false, stockChanged: false };
          }
          const now = deps.now();
          const snapshot: Record<string, unknown> = { ...t.payment_snapshot, ...providerData };
          // A payment that completes after a failed attempt does not keep that attempt's failure.
          if (decision.effects.completes && providerData.failure_code === undefined) delete snapshot.failure_code;
          if (!decision.effects.completes) {
            await tx.updateTable('transactions').set({ status: decision.next, payment_snapshot: JSON.stringify(snapshot), updated_at: now }).where('id', '=', t.id).execute();
            return { status: decision.next, completed: false, changed: true, stockChanged: false };
          }
          // Rows many captures share (the item's stock level, the location's receipt counter) are
          // written last, so their locks are held for the shortest time before the commit.
          const lines = await loadLines(tx, t.id);
          // Stock of tracked items goes down by what was sold (sold-stock.ts). A test-mode order sold
          // nothing (no money taken, and its DELETE would leave the stock short): it moves no stock.
          const sold = t.is_test ? [] : await moveSoldStock(tx, { location_id: t.location_id, lines }, 'sold', `Order ${t.order_no}`, now);
          const stockChanged = sold.length > 0;
          // The capture's step names the stock it took: what a cancellation after paying gives back.
          await tx.insertInto('transaction_steps').values({ transaction_id: t.id, step: 'capture', outcome: trigger.kind === 'poll' && trigger.via ? trigger.via : trigger.kind, detail: stockSoldDetail(sold) }).execute();
          await enqueueOutbox(tx, jobMessage(paymentPostCaptureJob, { tenant_database: deps.tenantDatabase, transaction_id: t.id, stock_changed: stockChanged }));
          await expireLoyaltyToken(tx, t.loyalty_token, now);
          const receiptNo = await nextCounter(tx, t.location_id, 'receipt_no');
          // A tip added on the terminal: the provider took more than the total (`captured_amount`, set by
          // the provider paths that know it). Booked once, with the completing write.
          const tipped = capturedTotals({ total: Number(t.total), tip_amount: Number(t.tip_amount) }, providerData.captured_amount);
          await tx
            .updateTable('transactions')
            .set({
              status: 'Complete',
              order_status: 'Queued',
              receipt_no: receiptNo,
              completed_at: now,
              // Order capacity timing: the kitchen slot this order now occupies (spec 3 "Transitions").
              capacity_slot_at: capacitySlotOf(t.scheduled_for ?? now),
              updated_at: now,
              ...(tipped ?? {}),
              payment_snapshot: JSON.stringify(decision.effects.markFree ? { ...snapshot, is_free: true } : snapshot),
              // A free order's flag (spec 3): a test-mode order completes by the same path but was not free.
              ...(decision.effects.markFree ? { is_free: t.total === 0 } : {}),
              ...(decision.effects.markAutoSuccess ? { auto_success: true } : {}),
              // The loyalty token of the order is spent: it cannot identify another payment.
              loyalty_token: null,
            })
            .where('id', '=', t.id)
            .execute();
          // Spec 3 "verify (online)": a table QR order is bound to its table session in this commit.
          await bindTableSessionOnCapture(tx, t);
          return { status: 'Complete' as PaymentStatus, completed: true, changed: true, stockChanged };
        }),
      { attempts: CAPTURE_ATTEMPTS, onRetry: (attempt, e) => deps.log.warn('payment capture write conflict; retrying', { transaction_id: transactionId, attempt, err: e }) },
    ).catch((e: unknown) => {
      if (!(e instanceof Error && e.name === 'AppError')) deps.log.error('payment capture failed', { transaction_id: transactionId, err: e });
      throw e;
    });
    if (result.changed) await publishPaymentStatus(deps.redis, deps.tenantDatabase, { transaction_id: transactionId, location_id: first.location_id, status: result.status }, deps.log);
    return { status: result.status, completed: result.completed, changed: result.changed };
  } finally {
    await lock.release();
    const ms = Date.now() - started;
    if (ms > (deps.slowMs ?? 2000)) deps.log.warn('slow payment capture', { transaction_id: transactionId, ms, trigger: trigger.kind });
  }
}
