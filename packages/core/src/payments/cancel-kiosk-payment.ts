import { AppError, errors } from '@pos/kernel';
import { keysToAbort, PAYMENT_REFUSALS, paymentTransition, type PaymentProvider, type ProviderOutcome } from '@pos/domain';
import { capturePayment } from './capture-payment.ts';
import { ProviderError } from '@pos/providers/payments';
import type { KioskDevice } from './kiosk-device.ts';
import { cardBSaleMayBeOnItsWay, isDefiniteRefusal, notConfigured, pollProvider, providerFailure } from './provider-outcome.ts';
import type { KioskPaymentDeps } from './start-kiosk-payment.ts';
import { runningProvider } from './running-provider.ts';
import { PAYMENT_STARTING, withPaymentStartLock } from './payment-start-lock.ts';
import { lostCheckoutStart, recoverLostCheckout } from './platform-a-checkout.ts';
import { findKioskTransactionByKey, loadTransaction, type TransactionRow } from './transaction-records.ts';
import { publishPaymentStatus } from './payment-events.ts';
import { isCurrentSession, sessionRefOf } from './payment-session.ts';

/**
 * `POST /kiosk/payment/cancel-action` (spec 3 "Capture rules" 3): platform-a cancels the terminal
 * checkout; card-b aborts the terminal session of every key not in the invalid list and marks each
 * invalid; card-a cancels the reader action and the intent. The transaction becomes `Cancelled`
 * (docs/decisions.md). The provider is called outside any database transaction; the status is then
 * written under the row lock, so a capture that won meanwhile makes this a 409.
 */
export async function cancelKioskPayment(deps: KioskPaymentDeps, device: KioskDevice, key: string): Promise<TransactionRow> {
  const found = await findKioskTransactionByKey(deps.tdb, device.id, key);
  // In turn with the transaction's starts: a start in flight saves its key and session first.
  return withPaymentStartLock(deps, found.id, () => cancelLocked(deps, device, found.id));
}

async function cancelLocked(deps: KioskPaymentDeps, device: KioskDevice, transactionId: string): Promise<TransactionRow> {
  let t = await loadTransaction(deps.tdb, transactionId);
  const first = paymentTransition(t.status, { kind: 'cancel' });
  if (first.kind === 'refused') throw errors.conflict(first.message, { reason: first.reason });
  if (first.kind === 'unchanged') return t.status === 'Cancelled' ? endLateSession(deps, device, t) : t;
  // A platform-a start whose answer was lost: its checkout is learnt first, so it is asked about (paid:
  // captured) and cancelled at the provider, never left running behind a Cancelled order.
  // A refusal of the question (even a 4xx: a token rotated, say) does not prove no checkout exists: 503,
  // the order left as it is, so a checkout the customer pays is still found. Past the provider's checkout
  // deadline none can still be waiting at the terminal (a paid one is still adopted, Cancelled or not):
  // then the order is cancelled here, or it could never be.
  if (lostCheckoutStart(t)) {
    const lost = t;
    t = await recoverLostCheckout(deps.tdb, deps.providers, lost).catch(async (e: unknown) => {
      if (isDefiniteRefusal(e)) {
        if (deps.now().getTime() - lost.updated_at.getTime() > LOST_CHECKOUT_EXPIRED_MS) return lost;
      } else {
        // An unanswered re-ask (timeout, 5xx) may just have made the checkout: its deadline starts now.
        await deps.tdb.updateTable('transactions').set({ updated_at: deps.now() }).where('id', '=', lost.id).where('idempotency_key', '=', lost.idempotency_key).execute();
      }
      return providerFailure(e);
    });
  }

  const aborted: string[] = [];
  const provider = runningProvider(t);
  const snap = t.payment_snapshot;
  try {
    // A payment the customer completed must not be cancelled here (card-b's abort of a finished session
    // changes nothing there; card-a and platform-a refuse to cancel a paid one): it is captured instead.
    // `ended`: the provider already reports the payment cancelled there.
    let ended = false;
    if (t.status !== 'Pending') {
      ended = (await captureIfPaid(deps, t, provider)) === 'aborted';
    }
    switch (provider) {
      case 'platform-a':
        if (typeof snap.checkout_id === 'string') {
          if (!deps.providers.platformA) notConfigured('platform-a');
          const platformA = deps.providers.platformA;
          const checkoutId = snap.checkout_id;
          // A cancel is a request (`CANCEL_REQUESTED`) the terminal may not honour before the buyer
          // finishes: asked again, a completed checkout is captured, one not yet cancelled refuses.
          if ((await cancelOrAskAgain(deps, t, 'platform-a', () => platformA.cancelTerminalCheckout(checkoutId))) !== 'ended') await askAfterCancel(deps, t);
        }
        aborted.push(t.idempotency_key);
        break;
      case 'card-b':
        // Pending too: a start of an earlier version (no write-ahead) may have reached the terminal. A
        // Pending order on a card-b this API has no client for never had a sale sent: nothing to abort.
        if (!deps.providers.cardB) {
          if (t.status === 'Pending') break;
          notConfigured('card-b');
        }
        {
          const r = await abortCardBSessions(deps, device, t, keysToAbort({ all: t.all_idempotency_keys, invalid: t.invalid_idempotency_keys }));
          aborted.push(...r.aborted);
          // The order's sale unknown at the terminal shortly after it was sent may still be on its way (a
          // start that gave up waiting for its answer): cancelled now, it would run behind a Cancelled
          // order. The kiosk cancels again once it can no longer arrive.
          if (r.unknownCurrent && cardBSaleMayBeOnItsWay(snap, deps.now(), t.updated_at)) throw errors.conflict(PAYMENT_STARTING, { reason: 'payment_starting' });
          await askAfterAbort(deps, t, r.found);
        }
        break;
      case 'card-a':
        if (typeof snap.id === 'string') {
          if (!deps.providers.cardA) notConfigured('card-a');
          if (typeof snap.reader_id === 'string') {
            // Only the reader's action on this intent: a reader that never received it (a start whose
            // answer was lost) may be taking another order's payment meanwhile.
            const reader = await deps.providers.cardA.retrieveReader(snap.reader_id).catch((e: unknown) => {
              if (e instanceof ProviderError && e.status === 404) return null;
              throw e;
            });
            if (reader?.action?.process_payment_intent?.payment_intent === snap.id) {
              await deps.providers.cardA.cancelReaderAction(snap.reader_id).catch((e: unknown) => {
                if (!(e instanceof ProviderError && e.status === 400)) throw e;
              });
            }
          }
          // An intent already cancelled (a first cancel that reached card-a, not our database) is not
          // cancelled again: card-a refuses that (400), which would keep the order from being cancelled.
          const cardA = deps.providers.cardA;
          const intentId = snap.id;
          if (!ended) await cancelOrAskAgain(deps, t, 'card-a', () => cardA.cancelPaymentIntent(intentId));
        }
        aborted.push(t.idempotency_key);
        break;
    }
  } catch (e) {
    if (e instanceof ProviderError && (e.status === 400 || e.status === 409)) {
      throw errors.conflict(CANCEL_REFUSED, { reason: 'cancel_refused' });
    }
    if (e instanceof ProviderError) deps.log.warn('cancel at the provider failed', { transaction_id: t.id, err: e });
    providerFailure(e);
  }

  const changed = await deps.tdb.transaction().execute(async (tx) => {
    const cur = await tx.selectFrom('transactions').select(['status', 'invalid_idempotency_keys', 'idempotency_key', 'payment_snapshot']).where('id', '=', t.id).forUpdate().executeTakeFirstOrThrow();
    const d = paymentTransition(cur.status, { kind: 'cancel' });
    if (d.kind === 'refused') throw errors.conflict(d.message, { reason: d.reason });
    // A start that got in meanwhile (this cancel outlived its lock: slow provider calls) made a session
    // this cancel did not abort: nothing is written, the kiosk cancels again.
    if (d.kind === 'accepted' && !isCurrentSession(sessionRefOf(t), cur)) {
      throw errors.conflict(PAYMENT_STARTING, { reason: 'payment_starting' });
    }
    const invalid = [...cur.invalid_idempotency_keys, ...aborted.filter((k) => !cur.invalid_idempotency_keys.includes(k))];
    await tx.updateTable('transactions').set({ status: 'Cancelled', invalid_idempotency_keys: invalid, updated_at: deps.now() }).where('id', '=', t.id).execute();
    return d.kind === 'accepted';
  });
  if (changed) await publishPaymentStatus(deps.redis, deps.tenantDatabase, { transaction_id: t.id, location_id: t.location_id, status: 'Cancelled' }, deps.log);
  return loadTransaction(deps.tdb, t.id);
}

const CANCEL_REFUSED = 'The terminal payment could not be cancelled; it may have completed.';

/**
 * Aborts the card-b sessions of `keys` (a key the terminal does not know, 404, has nothing to abort).
 * `found`: the keys whose session the terminal had; `unknownCurrent`: the order's own session was not there.
 */
async function abortCardBSessions(deps: KioskPaymentDeps, device: KioskDevice, t: TransactionRow, keys: readonly string[]): Promise<{ aborted: string[]; found: string[]; unknownCurrent: boolean }> {
  const aborted: string[] = [];
  const found: string[] = [];
  let unknownCurrent = false;
  const cardB = deps.providers.cardB!;
  for (const k of keys) {
    const abort = () =>
      cardB.abortSession(k, device.id).then(
        () => 'aborted' as const,
        (e: unknown) => {
          if (e instanceof ProviderError && e.status === 404) return 'unknown' as const;
          throw e;
        },
      );
    // An abort card-b refuses otherwise (a 4xx) is asked about again: paid is captured (409), still
    // processing refuses the cancel (409); a session that ended there has nothing left to abort.
    const r = await cancelOrAskAgain(deps, t, 'card-b', abort, { provider: 'card-b', idempotency_key: k, sessionId: k });
    if (r === 'aborted') found.push(k);
    if (r === 'unknown' && k === t.payment_snapshot.sessionId) unknownCurrent = true;
    aborted.push(k);
  }
  return { aborted, found, unknownCurrent };
}

/**
 * card-b answers an abort of a session the customer has just paid with 200 and keeps the payment: each
 * session found is asked again after its abort (which ended it either way, so the answer is final). A
 * paid one is captured (money taken wins; the order's older sessions too) and the cancel is 409
 * `payment_complete`; the order's own session still processing refuses the cancel.
 */
async function askAfterAbort(deps: KioskPaymentDeps, t: TransactionRow, keys: readonly string[]): Promise<void> {
  for (const k of keys) {
    const outcome = await captureIfPaid(deps, t, 'card-b', { provider: 'card-b', idempotency_key: k, sessionId: k });
    if (outcome === 'processing' && k === t.payment_snapshot.sessionId) throw errors.conflict(CANCEL_REFUSED, { reason: 'cancel_refused' });
  }
}

/** How many of a cancelled order's latest keys a repeated cancel aborts again. */
const LATE_SALE_KEYS = 5;

/** A platform-a checkout asked again after its cancel: completed is captured (409), not yet cancelled refuses (409). */
async function askAfterCancel(deps: KioskPaymentDeps, t: TransactionRow): Promise<void> {
  if ((await captureIfPaid(deps, t, 'platform-a')) === 'processing') throw errors.conflict(CANCEL_REFUSED, { reason: 'cancel_refused' });
}

/**
 * Runs a cancel or abort at the provider. Refused outright (a definite 4xx: platform-a's "Checkout is
 * already completed", card-a's cancel of an intent no longer cancellable), the session changed under
 * the cancel (the customer paid, or it ended) and is asked about again (`askAfterRefusal`). Answers
 * the request's result when the provider took it, `'ended'` when it refused and the session has ended
 * there (nothing left to cancel).
 */
async function cancelOrAskAgain<T>(deps: KioskPaymentDeps, t: TransactionRow, provider: PaymentProvider, request: () => Promise<T>, session?: Record<string, unknown>): Promise<T | 'ended'> {
  try {
    return await request();
  } catch (e) {
    if (!isDefiniteRefusal(e)) throw e;
    await askAfterRefusal(deps, t, provider, e, session);
    return 'ended';
  }
}

/**
 * A cancel the provider refused: the order completed meanwhile (its webhook, a poll) is 409
 * `payment_complete`; else the session is asked about again: paid is captured (409 `payment_complete`,
 * money taken wins), still running refuses the cancel (409 `cancel_refused`, the kiosk cancels again),
 * ended (cancelled, failed) returns and the cancel goes on. A provider that cannot answer the question
 * leaves the refusal as it was (`refusal` rethrown).
 */
async function askAfterRefusal(deps: KioskPaymentDeps, t: TransactionRow, provider: PaymentProvider, refusal: unknown, session?: Record<string, unknown>): Promise<void> {
  deps.log.warn('the provider refused the cancel; asking about the session again', { transaction_id: t.id, err: refusal });
  const cur = await loadTransaction(deps.tdb, t.id);
  const d = paymentTransition(cur.status, { kind: 'cancel' });
  if (d.kind === 'refused') throw errors.conflict(d.message, { reason: d.reason });
  const outcome = await captureIfPaid(deps, t, provider, session).catch((e: unknown) => {
    if (e instanceof AppError && e.reason === 'provider_error') throw refusal;
    throw e;
  });
  if (outcome === 'processing') throw errors.conflict(CANCEL_REFUSED, { reason: 'cancel_refused' });
}

/**
 * Asks the provider about `session` (the order's own unless given): a payment the customer made is
 * captured (with that session) and the cancel is 409 `payment_complete`; any other outcome is answered.
 */
async function captureIfPaid(deps: KioskPaymentDeps, t: TransactionRow, provider: PaymentProvider, session?: Record<string, unknown>): Promise<ProviderOutcome> {
  const report = await pollProvider(deps.providers, provider, session ?? t.payment_snapshot, deps.now());
  if (report.outcome !== 'succeeded' && report.outcome !== 'authorised') return report.outcome;
  await capturePayment(deps, t.id, session ? { kind: 'poll', session } : { kind: 'poll' });
  throw errors.conflict(PAYMENT_REFUSALS.payment_complete.message, { reason: 'payment_complete' });
}

/**
 * Cancel of an order already `Cancelled`: a session still alive at the provider is ended again, and
 * captured instead if the customer paid it ("money taken wins"), so the kiosk can always free its
 * terminal. card-b: a sale that reached the terminal after the cancel (a start whose sale arrived late,
 * or that lost its lock) is aborted again. platform-a: a checkout whose cancel was only requested is
 * asked about and cancelled again. Best effort: the order stays Cancelled when the provider cannot be reached.
 */
async function endLateSession(deps: KioskPaymentDeps, device: KioskDevice, t: TransactionRow): Promise<TransactionRow> {
  const provider = runningProvider(t);
  try {
    if (provider === 'platform-a' && deps.providers.platformA && typeof t.payment_snapshot.checkout_id === 'string') {
      const platformA = deps.providers.platformA;
      const checkoutId = t.payment_snapshot.checkout_id;
      const endCheckout = async () => {
        const report = await pollProvider(deps.providers, 'platform-a', t.payment_snapshot, deps.now());
        // A cancel refused (the buyer completed the checkout while it travelled) asks again: paid is captured.
        if (report.outcome === 'processing' && (await cancelOrAskAgain(deps, t, 'platform-a', () => platformA.cancelTerminalCheckout(checkoutId))) === 'ended') return;
        await askAfterCancel(deps, t);
      };
      await endCheckout().catch((e: unknown) => {
        // Still being cancelled: it was asked to, again; the order is Cancelled already.
        if (!(e instanceof AppError && e.reason === 'cancel_refused')) throw e;
      });
      return t;
    }
    if (provider !== 'card-b' || !deps.providers.cardB || typeof t.payment_snapshot.sessionId !== 'string') return t;
    // The snapshot's session first: after a start undone on a busy terminal it is older than the last keys.
    const keys = [...new Set([t.payment_snapshot.sessionId as string, ...t.all_idempotency_keys.slice(-LATE_SALE_KEYS)])];
    const r = await abortCardBSessions(deps, device, t, keys);
    await askAfterAbort(deps, t, r.found);
  } catch (e) {
    // card-b unreachable (its error, or the 503 a poll makes of it): the order stays as it is.
    const unreachable = e instanceof ProviderError || (e instanceof AppError && e.reason === 'provider_error');
    if (!unreachable) throw e;
    deps.log.warn('ending a cancelled order\'s provider session failed', { transaction_id: t.id, err: e });
  }
  return t;
}

/**
 * Past this age a platform-a start whose checkout is unknown has none waiting at the terminal: the
 * provider's checkout deadline (5 minutes unless the request sets one; ours does not) with a margin.
 */
export const LOST_CHECKOUT_EXPIRED_MS = 10 * 60_000;
