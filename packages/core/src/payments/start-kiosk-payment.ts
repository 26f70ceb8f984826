import type Redis from 'ioredis';
import type { TenantDb } from '@pos/db';
import { errors, type Logger } from '@pos/kernel';
import { sql } from 'kysely';
import { foldRetryKey, isPaymentProvider, keysToAbort, PAYMENT_REFUSALS, paymentTimeProvider, paymentTransition, type PaymentProvider, type PaymentStatus } from '@pos/domain';
import { ProviderError } from '@pos/providers/payments';
import { capturePayment } from './capture-payment.ts';
import { createKioskCheckout } from './platform-a-checkout.ts';
import { PAYMENT_STARTING, withPaymentStartLock } from './payment-start-lock.ts';
import { mintKioskKey } from './kiosk-keys.ts';
import { readPaymentSettings, type KioskDevice } from './kiosk-device.ts';
import type { PaymentProviders } from './payment-providers.ts';
import { isDefiniteRefusal, notConfigured, pollProvider, providerFailure, type ProviderReport } from './provider-outcome.ts';
import { loadTransaction, stampedPaymentProvider, type TransactionRow } from './transaction-records.ts';
import { runningProvider } from './running-provider.ts';
import { renewOrderHold } from '../catalog/stock-availability.ts';

export interface KioskPaymentDeps {
  readonly tdb: TenantDb;
  readonly tenantDatabase: string;
  readonly redis: Redis;
  readonly providers: PaymentProviders;
  readonly log: Logger;
  readonly now: () => Date;
}

/** Sale attempts on card-b when the terminal answers 409 (a fresh key each time). */
export const CARD_B_CONFLICT_ATTEMPTS = 3;

export const TERMINAL_NOT_CONFIGURED: Readonly<Record<PaymentProvider, string>> = {
  'card-b': 'A card-b terminal must be configured for this device.',
  'card-a': 'A card-a terminal reader must be configured for this device.',
  'platform-a': 'platform-a Terminal device not configured for this device',
};

/** A kiosk whose terminal payment the back office turned off (`deactivate-payment`). */
export const PAYMENT_DISABLED = 'Terminal payments are turned off for this device.';

/**
 * Checked where a new terminal session would start, after the session a retry replaces was asked about:
 * one already paid is still captured when the switch is off (as with a terminal removed meanwhile).
 */
function requirePaymentEnabled(device: KioskDevice): void {
  if (device.payment_enabled === false) throw errors.businessRule(PAYMENT_DISABLED, { reason: 'payment_disabled' });
}

/**
 * Saves a fresh key as the transaction's current one, folding the old one into the history. Only over
 * the key it read (compare and set): a key history rewritten by two writers would lose a key whose
 * terminal session then could not be cancelled.
 */
async function rotateKey(deps: KioskPaymentDeps, t: TransactionRow, deviceId: string): Promise<TransactionRow> {
  const next = await mintKioskKey(deps.tdb, deviceId, deps.now(), t.idempotency_key);
  const h = foldRetryKey({ current: t.idempotency_key, all: t.all_idempotency_keys, invalid: t.invalid_idempotency_keys }, next, false);
  const r = await deps.tdb
    .updateTable('transactions')
    .set({ idempotency_key: h.current, all_idempotency_keys: [...h.all], updated_at: deps.now() })
    .where('id', '=', t.id)
    .where('idempotency_key', '=', t.idempotency_key)
    .executeTakeFirst();
  if (Number(r.numUpdatedRows) !== 1) throw errors.conflict(PAYMENT_STARTING, { reason: 'payment_starting' });
  return loadTransaction(deps.tdb, t.id);
}

/** The terminal or reader is taking another payment. */
const terminalBusy = () => errors.conflict('The payment terminal is busy with another payment. Try again.', { reason: 'terminal_busy' });

/**
 * Starts (or resumes) the provider payment of a kiosk transaction (spec 3 "Kiosk start, by
 * provider"). Free orders and auto-success mode capture at once. Provider calls run outside any
 * database transaction. The session about to be started is recorded first (`recordStarting`), the
 * provider's answer after.
 */
export async function startKioskPayment(deps: KioskPaymentDeps, device: KioskDevice, transactionId: string): Promise<TransactionRow> {
  // One start of a transaction at a time (retries sent together): the next one then finds the session
  // the first started and reuses it, instead of starting a second sale on the terminal.
  return withPaymentStartLock(deps, transactionId, () => startLocked(deps, device, transactionId));
}

async function startLocked(deps: KioskPaymentDeps, device: KioskDevice, transactionId: string): Promise<TransactionRow> {
  let t = await loadTransaction(deps.tdb, transactionId);
  const capture = { tdb: deps.tdb, tenantDatabase: deps.tenantDatabase, redis: deps.redis, providers: deps.providers, log: deps.log, now: deps.now };
  if (t.total === 0) {
    await capturePayment(capture, t.id, { kind: 'free' });
    return loadTransaction(deps.tdb, t.id);
  }
  // A location in payment test mode takes no money on a real terminal: the order completes as the
  // synthetic test payment online ordering gets (spec 3 "Online ordering payment creation" 1). An order
  // whose provider session already started (test mode turned on since) keeps its provider.
  if (t.is_test && typeof t.payment_snapshot.provider !== 'string') {
    await deps.tdb.updateTable('transactions').set({ payment_snapshot: JSON.stringify({ ...t.payment_snapshot, id: `free_${t.id}`, is_free: true }) }).where('id', '=', t.id).execute();
    await capturePayment(capture, t.id, { kind: 'free' });
    return loadTransaction(deps.tdb, t.id);
  }
  if (deps.providers.autoSuccess) {
    await capturePayment(capture, t.id, { kind: 'auto_success' });
    return loadTransaction(deps.tdb, t.id);
  }
  const allowed = paymentTransition(t.status, { kind: 'start' });
  if (allowed.kind === 'refused') throw errors.conflict(allowed.message, { reason: allowed.reason });

  const location = await deps.tdb.selectFrom('locations').select('payment_settings').where('id', '=', t.location_id).executeTakeFirstOrThrow();
  const settings = readPaymentSettings(location.payment_settings);
  const previous = t.payment_snapshot;
  // The provider of the order's last recorded start stays for its retries: switching (platform-a turned on
  // or off meanwhile) would overwrite the only record of a session still running at the other provider,
  // which the customer could then pay with nothing left to find it. A new order takes the new setting.
  const started = typeof previous.provider === 'string' && isPaymentProvider(previous.provider) ? previous.provider : null;
  const provider = started ?? paymentTimeProvider(stampedPaymentProvider(t), settings.platform_a_active);
  const sameProvider = runningProvider(t) === provider;
  // What this start replaces: a start the provider refuses outright (terminal busy) puts it back.
  const before: BeforeStart = { status: t.status, snapshot: previous };

  let snapshot: Record<string, unknown>;
  switch (provider) {
    case 'card-b': {
      const terminalId = device.card_b_terminal_id;
      // The sessions the retry replaces are asked about first: one already paid is captured whatever the
      // kiosk's terminal setting is now (it may have been removed since the customer paid).
      let report: ProviderReport | null = null;
      let earlier: EarlierSession | null = null;
      if (sameProvider && typeof previous.sessionId === 'string') {
        report = await pollProvider(deps.providers, 'card-b', previous, deps.now());
        // Already paid (the customer paid before the retry): capture it, never charge again.
        if (isPaid(report)) return captureInstead(capture, t.id);
        // An earlier key's sale that reached the terminal late may be paid, or still running there: never
        // a new sale beside it (the customer would pay twice).
        if (report.outcome !== 'processing') {
          earlier = await earlierCardBSession(deps, t, previous, terminalId);
          if (earlier?.outcome === 'paid') return captureInstead(capture, t.id, earlier.session);
        }
      }
      requirePaymentEnabled(device);
      if (!terminalId) throw errors.businessRule(TERMINAL_NOT_CONFIGURED['card-b'], { reason: 'terminal_not_configured' });
      if (!deps.providers.cardB) notConfigured('card-b');
      if (report) {
        // Reuse a session still running at the terminal; a finished one needs a fresh key.
        if (report.outcome === 'processing') return saveStart(deps, t, { ...previous });
        if (earlier?.outcome === 'processing') return saveStart(deps, t, earlier.session);
        t = await rotateKey(deps, t, device.id);
      }
      for (let attempt = 1; ; attempt++) {
        // `started_at`: until a while after it, the terminal not knowing the session does not mean it never will.
        snapshot = { provider, idempotency_key: t.idempotency_key, sessionId: t.idempotency_key, terminalId, started_at: deps.now().toISOString() };
        await recordStarting(deps, t, snapshot);
        try {
          await deps.providers.cardB.startSale({
            sessionId: t.idempotency_key,
            terminalId,
            cashRegisterId: device.id,
            amount: t.total - t.tip_amount,
            tipAmount: t.tip_amount,
            currencyCode: deps.providers.currencyNumeric,
            merchantReference: `${t.location_id}:${t.order_no}`,
            customerTrns: `Order ${t.order_no}`,
          });
          break;
        } catch (e) {
          if (e instanceof ProviderError && e.status === 409) {
            if (attempt >= CARD_B_CONFLICT_ATTEMPTS) {
              await undoStarting(deps, t, before);
              throw terminalBusy();
            }
            deps.log.warn('card-b terminal conflict; new idempotency key', { transaction_id: t.id, key: t.idempotency_key, attempt });
            t = await rotateKey(deps, t, device.id);
            continue;
          }
          deps.log.warn('card-b sale failed', { transaction_id: t.id, err: e });
          // Refused outright (a 4xx): no session was made, the order goes back to what it was.
          if (isDefiniteRefusal(e)) await undoStarting(deps, t, before);
          // Otherwise the sale may have reached the terminal (the answer was lost): its session stays
          // recorded, so polls, the webhook and cancel find it and a payment the customer makes is captured.
          providerFailure(e);
        }
      }
      break;
    }
    case 'card-a': {
      const readerId = device.card_a_reader_id;
      // Asked before the reader setting: an intent already paid is captured, never charged again.
      const report = sameProvider && typeof previous.id === 'string' ? await pollProvider(deps.providers, 'card-a', previous, deps.now()) : null;
      if (report && isPaid(report)) return captureInstead(capture, t.id);
      requirePaymentEnabled(device);
      if (!readerId) throw errors.businessRule(TERMINAL_NOT_CONFIGURED['card-a'], { reason: 'terminal_not_configured' });
      if (!deps.providers.cardA) notConfigured('card-a');
      if (report) {
        if (report.outcome === 'processing') return resumeOnReader(deps, t, readerId, previous);
        t = await rotateKey(deps, t, device.id);
      }
      let pi: { id: string };
      try {
        pi = await deps.providers.cardA.createPaymentIntent({
          amount: t.total,
          currency: deps.providers.currency,
          paymentMethodTypes: ['card_present'],
          metadata: { location_id: t.location_id, transaction_id: t.id, idempotency_key: t.idempotency_key, order_no: String(t.order_no) },
          idempotencyKey: t.idempotency_key,
        });
      } catch (e) {
        // An intent alone takes no money: nothing is on the reader yet.
        deps.log.warn('card-a payment intent not created', { transaction_id: t.id, err: e });
        providerFailure(e);
      }
      snapshot = { provider, idempotency_key: t.idempotency_key, id: pi.id, reader_id: readerId };
      await recordStarting(deps, t, snapshot);
      try {
        await deps.providers.cardA.processPaymentIntent(readerId, pi.id);
      } catch (e) {
        if (e instanceof ProviderError && e.status === 409) {
          await undoStarting(deps, t, before);
          throw terminalBusy();
        }
        // Not a refusal of the reader (busy): the intent may have reached it (the answer was lost), so it
        // stays recorded for polls, the webhook and cancel, as a started payment.
        deps.log.warn('card-a reader payment failed to start', { transaction_id: t.id, err: e });
        providerFailure(e);
      }
      break;
    }
    case 'platform-a': {
      const deviceId = device.platform_a_device_id;
      // Asked before the terminal setting: a checkout already completed is captured, never charged again.
      const report = sameProvider && typeof previous.checkout_id === 'string' ? await pollProvider(deps.providers, 'platform-a', previous, deps.now()) : null;
      if (report && isPaid(report)) return captureInstead(capture, t.id);
      requirePaymentEnabled(device);
      if (!deviceId) throw errors.businessRule(TERMINAL_NOT_CONFIGURED['platform-a'], { reason: 'terminal_not_configured' });
      if (!deps.providers.platformA) notConfigured('platform-a');
      if (report) {
        if (report.outcome === 'processing') return saveStart(deps, t, { ...previous });
        t = await rotateKey(deps, t, device.id);
      }
      // Its checkout id is only known from the answer: a start whose answer is lost is found again by
      // asking with the same key (a retry here, cancel, the webhook: `recoverLostCheckout`).
      await recordStarting(deps, t, { provider, idempotency_key: t.idempotency_key, device_id: deviceId });
      try {
        const c = await createKioskCheckout(deps.providers, t, t.idempotency_key, deviceId);
        snapshot = { provider, idempotency_key: t.idempotency_key, checkout_id: c.id, device_id: deviceId };
      } catch (e) {
        deps.log.warn('platform-a checkout failed to start', { transaction_id: t.id, err: e });
        // Refused outright (4xx: no checkout was made): the order goes back to what it was.
        if (isDefiniteRefusal(e)) await undoStarting(deps, t, before);
        providerFailure(e);
      }
      break;
    }
  }
  return saveStart(deps, t, snapshot);
}

/**
 * A card-a retry whose intent is still open: the reader is asked to take it again (a start whose answer
 * was lost may never have reached it). A reader busy with this very intent is the payment running; busy
 * with another one, the terminal is busy.
 */
async function resumeOnReader(deps: KioskPaymentDeps, t: TransactionRow, readerId: string, previous: Record<string, unknown>): Promise<TransactionRow> {
  const cardA = deps.providers.cardA!;
  try {
    await cardA.processPaymentIntent(readerId, String(previous.id));
  } catch (e) {
    if (!(e instanceof ProviderError && e.status === 409)) providerFailure(e);
    const reader = await cardA.retrieveReader(readerId).catch(providerFailure);
    if (reader.action?.process_payment_intent?.payment_intent !== previous.id) {
      throw terminalBusy();
    }
  }
  return saveStart(deps, t, { ...previous, reader_id: readerId });
}

/** The customer paid that session (taken or authorised). */
const isPaid = (report: ProviderReport) => report.outcome === 'succeeded' || report.outcome === 'authorised';

async function captureInstead(capture: Parameters<typeof capturePayment>[0], id: string, session?: Record<string, unknown>): Promise<TransactionRow> {
  await capturePayment(capture, id, session ? { kind: 'poll', session } : { kind: 'poll' });
  return loadTransaction(capture.tdb, id);
}

/** How many of an order's latest earlier card-b keys a retry asks about before starting a new sale. */
const EARLIER_KEYS = 5;

interface EarlierSession {
  readonly outcome: 'paid' | 'processing';
  readonly session: Record<string, unknown>;
}

/**
 * The first of the order's earlier card-b sessions (newest first, not invalidated, other than the one
 * the snapshot names) that card-b reports paid or still processing, with the snapshot naming it.
 */
async function earlierCardBSession(deps: KioskPaymentDeps, t: TransactionRow, previous: Record<string, unknown>, terminalId: string | null): Promise<EarlierSession | null> {
  const keys = keysToAbort({ all: t.all_idempotency_keys, invalid: t.invalid_idempotency_keys }).filter((k) => k !== previous.sessionId).slice(-EARLIER_KEYS).reverse();
  for (const k of keys) {
    const session = { provider: 'card-b', idempotency_key: k, sessionId: k, ...(terminalId ? { terminalId } : {}) };
    const report = await pollProvider(deps.providers, 'card-b', session, deps.now());
    if (isPaid(report)) return { outcome: 'paid', session };
    if (report.outcome === 'processing') return { outcome: 'processing', session };
  }
  return null;
}

/** A transaction's payment state before a start recorded its session (`undoStarting`). */
interface BeforeStart {
  readonly status: PaymentStatus;
  readonly snapshot: Record<string, unknown>;
}

/**
 * Write-ahead of a provider call (DESIGN 2: commit what we know, call out, record the answer): the
 * session about to be started is saved, status `Awaiting Payment`, before the provider is asked. A
 * process that dies, or a database that goes away, after the provider took the sale then leaves a
 * transaction the webhook, the polls, cancel and verify find, so a payment the customer makes is
 * captured and the terminal's session can be aborted. Refused when a capture or cancel won meanwhile.
 */
async function recordStarting(deps: KioskPaymentDeps, t: TransactionRow, snapshot: Record<string, unknown>): Promise<void> {
  const refusal = await deps.tdb.transaction().execute(async (tx) => {
    const cur = await tx.selectFrom('transactions').select(['status', 'cart_session_id']).where('id', '=', t.id).forUpdate().executeTakeFirstOrThrow();
    const d = paymentTransition(cur.status, { kind: 'start' });
    if (d.kind !== 'accepted') return d;
    // A failed payment's hold stopped counting (or the hold ran out): taken again, checked, with the status
    // that makes it count, so no other checkout can take the units between the two.
    await renewOrderHold(tx, { transactionId: t.id, locationId: t.location_id, status: cur.status, holdsStock: cur.cart_session_id !== null, now: deps.now() });
    await tx.updateTable('transactions').set({ status: d.next, payment_snapshot: JSON.stringify(snapshot), updated_at: deps.now() }).where('id', '=', t.id).execute();
    return null;
  });
  if (refusal?.kind === 'refused') throw errors.conflict(refusal.message, { reason: refusal.reason });
}

/**
 * The provider refused the start outright (terminal busy): no session of ours exists, so the status
 * and snapshot go back to what they were, only if nothing has moved the transaction since (a capture,
 * a cancel, another key). The key history keeps the keys tried.
 */
async function undoStarting(deps: KioskPaymentDeps, t: TransactionRow, before: BeforeStart): Promise<void> {
  await deps.tdb
    .updateTable('transactions')
    .set({ status: before.status, payment_snapshot: JSON.stringify(before.snapshot), updated_at: deps.now() })
    .where('id', '=', t.id)
    // Unpaid too: a poll of the refused session (unknown at the provider) may have got there first.
    .where('status', 'in', ['Awaiting Payment', 'Unpaid'])
    .where(sql<string>`payment_snapshot->>'idempotency_key'`, '=', t.idempotency_key)
    .execute();
}

/** Records a started payment: status `Awaiting Payment` (state checked under the row lock), snapshot saved. */
async function saveStart(deps: KioskPaymentDeps, t: TransactionRow, snapshot: Record<string, unknown>): Promise<TransactionRow> {
  const cancelled = await deps.tdb.transaction().execute(async (tx) => {
    const cur = await tx.selectFrom('transactions').select(['status']).where('id', '=', t.id).forUpdate().executeTakeFirstOrThrow();
    const d = paymentTransition(cur.status, { kind: 'start' });
    // A capture that won meanwhile (auto-completing terminal, fast webhook) keeps its status.
    if (d.kind !== 'accepted') return cur.status === 'Cancelled';
    await tx.updateTable('transactions').set({ status: d.next, payment_snapshot: JSON.stringify(snapshot), updated_at: deps.now() }).where('id', '=', t.id).execute();
    return false;
  });
  if (cancelled) {
    // Only when the start lock was lost (Redis away or flushed): a cancel ran meanwhile, and the session
    // this start made is not the order's. Never a 200 for it; a payment made there is still captured
    // by its webhook ("money taken wins").
    deps.log.error('kiosk payment started on a cancelled order', { transaction_id: t.id, key: t.idempotency_key });
    throw errors.conflict(PAYMENT_REFUSALS.payment_cancelled.message, { reason: 'payment_cancelled' });
  }
  return loadTransaction(deps.tdb, t.id);
}
