import { sql } from 'kysely';
import type { TenantDb } from '@pos/db';
import type { PaymentProvider, TransactionChannel } from '@pos/domain';
import type Redis from 'ioredis';
import type { Logger } from '@pos/kernel';
import { transactionProviderSql } from './running-provider.ts';
import { verifyTransactionPayment, type VerifyPaymentDeps } from './verify-transaction-payment.ts';
import { withPaymentStartLock } from './payment-start-lock.ts';
import { discardUnstarted } from './transaction-records.ts';

/**
 * Payments whose outcome never reached us. A started payment ends through the provider's webhook or a
 * poll (the kiosk's details call, the storefront's verify). When both are lost (the kiosk went away
 * without its key after the API died mid-start; a webhook whose processing failed while the database
 * was away, answered 2xx so the provider does not send it again), an order the customer paid for would
 * stay `Awaiting Payment`. The sweep asks the provider about each start left waiting a while and
 * captures with its answer, as a poll does: paid, Complete; failed, Unpaid; still running, unchanged.
 * An `Unpaid` order is asked too where the customer can still pay it without a new request through this
 * API (spec 3: Unpaid "may still succeed"; `UNPAID_STILL_PAYABLE`): that payment's webhook is the only
 * other news of it.
 */

/** A start younger than this is left to its webhook and its kiosk. */
export const STALE_START_AFTER_MS = 5 * 60_000;
/** A start older than this is not asked about any more (an abandoned cart is asked a bounded number of times). */
export const STALE_START_WINDOW_MS = 2 * 3600_000;
/** Starts asked about per sweep and merchant, oldest first (the next sweep takes the rest). */
export const STALE_START_LIMIT = 100;
/** A start asked about is not asked again for this long: the sweep pages past it to newer ones. */
export const STALE_START_ASK_EVERY_MS = 15 * 60_000;
/** Rows read per page, and pages per sweep and merchant at most. */
export const STALE_START_PAGE = 200;
export const STALE_START_MAX_PAGES = 20;

/**
 * `Unpaid` orders a payment can still complete with no request through this API: online orders (online
 * ordering, table QR) on card-a, whose storefront confirms the same intent with another card at card-a
 * (or whose hosted checkout takes another card), and on the legacy card-b hosted checkout, whose page
 * takes another card. Not asked: a platform-a online order (its next card comes through
 * `payment/process`, which captures with the answer) and a kiosk order (its terminal session ended with
 * the failure; a retry starts a new one through `create-intent`, `Awaiting Payment` again): asking
 * would be harmless, but every declined order would be asked for two hours about nothing.
 */
export const UNPAID_STILL_PAYABLE: { readonly channels: readonly TransactionChannel[]; readonly providers: readonly PaymentProvider[] } = {
  channels: ['online_ordering', 'table_qr'],
  providers: ['card-a', 'card-b'],
};

export interface StaleStart {
  readonly id: string;
  readonly updated_at: Date;
}

/**
 * Transactions `Awaiting Payment`, and `Unpaid` ones that can still be paid (`UNPAID_STILL_PAYABLE`),
 * whose start (or last retry, or failure) is between `STALE_START_AFTER_MS` and `STALE_START_WINDOW_MS`
 * old, oldest first, after `after` (paging). Each kind has its partial index (tenant migrations 109 and 110).
 */
export async function findStaleStarts(db: TenantDb, now: Date, limit = STALE_START_PAGE, after?: StaleStart): Promise<StaleStart[]> {
  let q = db
    .selectFrom('transactions')
    .select(['id', 'updated_at'])
    .where((eb) =>
      eb.or([
        eb('status', '=', 'Awaiting Payment'),
        eb.and([eb('status', '=', 'Unpaid'), eb('channel', 'in', UNPAID_STILL_PAYABLE.channels), eb(transactionProviderSql(), 'in', UNPAID_STILL_PAYABLE.providers)]),
      ]),
    )
    .where('updated_at', '<', new Date(now.getTime() - STALE_START_AFTER_MS))
    .where('updated_at', '>', new Date(now.getTime() - STALE_START_WINDOW_MS));
  if (after) q = q.where((eb) => eb.or([eb('updated_at', '>', after.updated_at), eb.and([eb('updated_at', '=', after.updated_at), eb('id', '>', after.id)])]));
  return q.orderBy('updated_at').orderBy('id').limit(limit).execute();
}

export interface StaleStartOutcome {
  readonly id: string;
  /** The status after the provider was asked, or why it was not. */
  readonly status: string;
}

/**
 * Asks the provider about each transaction and settles it with the answer (`verifyTransactionPayment`:
 * an online order as the storefront's verify does; a kiosk one under its start lock, a retry in flight
 * left alone: `busy`); one failure (the provider away) does not stop the
 * others (`error`); past `deadline` (ms since the epoch) the rest are not asked (`skipped`).
 */
export async function settleStaleStarts(deps: VerifyPaymentDeps, ids: readonly string[], deadline = Infinity): Promise<StaleStartOutcome[]> {
  const out: StaleStartOutcome[] = [];
  for (const id of ids) {
    if (Date.now() > deadline) {
      out.push({ id, status: 'skipped' });
      continue;
    }
    try {
      const r = await verifyTransactionPayment(deps, id);
      out.push({ id, status: r.status });
    } catch (e) {
      const reason = (e as { reason?: unknown }).reason;
      out.push({ id, status: reason === 'payment_starting' ? 'busy' : 'error' });
      if (reason !== 'payment_starting') deps.log.warn('stale payment start not settled', { transaction_id: id, err: e });
    }
  }
  return out;
}

/**
 * A storefront order (online ordering, table QR) stored `Pending` whose payment never started: its request
 * died between storing the order and starting the payment, and nobody retried with its key (a retry after
 * `ORPHANED_START_MS` resumes it). Past this it is discarded as a refused start's order is: its number
 * stays used; its stock and slot holds had lapsed after 15 minutes already.
 */
export const ORPHANED_PENDING_AFTER_MS = 30 * 60_000;

/**
 * Providers at which a `Pending` order cannot have been paid: the customer never received what pays it
 * (card-a's client secret or hosted page, card-b's checkout page). A platform-a card is charged by the start
 * itself, so a platform-a order is left `Pending` for its retry (same key: platform-a answers the attempt).
 */
export const ORPHAN_DISCARDABLE_PROVIDERS: readonly PaymentProvider[] = ['card-a', 'card-b'];

/**
 * Storefront orders (online ordering, table QR) still `Pending`, stored before `olderThanMs` ago, free
 * (`is_free` answered) or not, oldest first: the partial index of tenant migration 700.
 */
async function pendingStorefrontOrders(db: TenantDb, now: Date, olderThanMs: number, free: boolean, limit: number, providers?: readonly PaymentProvider[]): Promise<string[]> {
  let q = db
    .selectFrom('transactions')
    .select('id')
    .where('status', '=', 'Pending')
    .where('created_at', '<', new Date(now.getTime() - olderThanMs))
    .where('channel', 'in', UNPAID_STILL_PAYABLE.channels)
    .where(free ? sql<boolean>`(payment_snapshot->>'is_free') = 'true'` : sql<boolean>`(payment_snapshot->>'is_free') is distinct from 'true'`);
  if (providers) q = q.where('payment_provider', 'in', providers);
  return (await q.orderBy('created_at').limit(limit).execute()).map((r) => r.id);
}

/**
 * Storefront orders left `Pending` past `ORPHANED_PENDING_AFTER_MS` that may be discarded, oldest first. A
 * free or test-mode order's start did run (the customer was answered `is_free`; its verify completes it):
 * not an orphan, never discarded (`findUncapturedFree` completes it).
 */
export function findOrphanedPending(db: TenantDb, now: Date, limit = STALE_START_PAGE): Promise<string[]> {
  return pendingStorefrontOrders(db, now, ORPHANED_PENDING_AFTER_MS, false, limit, ORPHAN_DISCARDABLE_PROVIDERS);
}

/**
 * A free or test-mode storefront order is completed right after its answer (`is_free`, a capture in the
 * background); one still `Pending` this long after lost that capture (the process stopped, an error) and
 * is completed by the sweep, as its verify would: the customer was told it was placed.
 */
export const FREE_CAPTURE_AFTER_MS = 2 * 60_000;

/** Free or test-mode storefront orders whose capture was lost, oldest first. */
export function findUncapturedFree(db: TenantDb, now: Date, limit = STALE_START_PAGE): Promise<string[]> {
  return pendingStorefrontOrders(db, now, FREE_CAPTURE_AFTER_MS, true, limit);
}

/**
 * Discards those orders (`discardUnstarted`: lines by cascade), each under its payment start lock
 * without waiting (a retry resuming it holds the lock: that one is left alone) and only while still
 * `Pending`. Answers the ids discarded.
 */
export async function discardOrphanedPending(deps: { readonly redis: Redis; readonly log: Logger }, db: TenantDb, ids: readonly string[]): Promise<string[]> {
  const gone: string[] = [];
  for (const id of ids) {
    try {
      if (await withPaymentStartLock(deps, id, () => discardUnstarted(db, id), { lockMs: 30_000, renewMs: 10_000, waitMs: 0 })) gone.push(id);
    } catch (e) {
      if ((e as { reason?: unknown }).reason !== 'payment_starting') deps.log.warn('orphaned storefront order not discarded', { transaction_id: id, err: e });
    }
  }
  return gone;
}
