import type Redis from 'ioredis';
import { errors, type Logger } from '@pos/kernel';
import type { TenantDb } from '@pos/db';
import type { CardAClient, CardAInvoice, CardASubscription } from '@pos/providers/card-a/card-a-client';
import { ProviderError } from '@pos/providers/shared/provider-error';
import { logActivity } from '../activity/log-activity.ts';
import { withSubscriptionLock } from '../webhooks/card-a-subscriptions.ts';
import { acquireLock } from '../webhooks/redis-lock.ts';
import { findBillingProfile, subscriptionView, type BillingSubscriptionView } from './billing-profiles.ts';
import { isUuid } from '@pos/domain/ids';
import { requireGrantedLocations, type Access } from '../auth/access.ts';

/** Who acts on a subscription: the user (activity log) and their location grant. */
export interface SubscriptionActor {
  readonly userId: string;
  readonly access: Access;
}

/**
 * Subscription actions of a billing profile (spec 1 "Settings"), carried out at card-a through its
 * client; the local `billing_subscriptions` record takes the provider's answer at once (under the
 * subscription's lock, as the webhook handlers do) so the screen does not wait for the event.
 * cancel / reactivate schedule or withdraw the cancellation at the end of the paid period (the
 * devices keep serving until then); retry-payment pays the newest open invoice now.
 */

export const BILLING_NOT_CONFIGURED = 'Billing through card-a is not configured.';
export const ALREADY_CANCELED = 'The subscription is already canceled.';
export const NOTHING_TO_RETRY = 'The subscription has no unpaid bill.';
export const PAYMENT_FAILED = 'The payment attempt failed.';
export const PROVIDER_UNAVAILABLE = 'The billing provider is unavailable, try again later.';

export interface PastBillView {
  id: string;
  subscription: string | null;
  status: string;
  /** Cents. */
  amount_due: number;
  attempt_count: number;
  created_at: string | null;
}

/**
 * A provider refusal is the merchant's to read (422); anything else is the provider being away (503).
 * Our own credentials refused (401, or 403: a key lacking a permission) are ours to fix, not the
 * merchant's, and their text names our key and account: 503 like an outage.
 */
export async function atProvider<T>(fn: () => Promise<T>, refusal?: string): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof ProviderError && e.kind === 'http' && e.status !== null && e.status >= 400 && e.status < 500 && e.status !== 401 && e.status !== 403 && e.status !== 429) {
      throw errors.businessRule(refusal ?? e.message.replace(/^card-a: /, ''));
    }
    throw errors.unavailable(PROVIDER_UNAVAILABLE);
  }
}

export function client(cardA: CardAClient | null): CardAClient {
  if (!cardA) throw errors.unavailable(BILLING_NOT_CONFIGURED);
  return cardA;
}

/**
 * The subscription of the profile (404 otherwise). A subscription pays for one location's devices, so
 * acting on it (cancel, reactivate, retry) needs that location in the caller's grant (spec 1 section 5:
 * permissions are scoped to the granted locations): 403 otherwise, before any provider call.
 */
async function findSubscription(tdb: TenantDb, access: Access, profileId: string, subId: string) {
  const profile = await findBillingProfile(tdb, profileId);
  const row =
    profile.card_a_customer_id && isUuid(subId)
      ? await tdb.selectFrom('billing_subscriptions').selectAll().where('id', '=', subId).where('customer_id', '=', profile.card_a_customer_id).executeTakeFirst()
      : undefined;
  if (!row) throw errors.notFound('subscription');
  requireGrantedLocations(access, [row.location_id]);
  return row;
}

/**
 * Writes the provider's answer onto the local record. A record that became `canceled` while card-a was
 * asked (its `deleted` event handled meanwhile) stays so: the answer read before the deletion would bring
 * a dead subscription back to `active` for good (no event follows a deletion), serving its devices unpaid.
 */
async function record(tdb: TenantDb, userId: string, localId: string, s: CardASubscription, action: string) {
  return withSubscriptionLock(tdb, s.id, async (tx) => {
    const current = await tx.selectFrom('billing_subscriptions').select('status').where('id', '=', localId).forUpdate().executeTakeFirstOrThrow();
    if (current.status === 'canceled') throw errors.businessRule(ALREADY_CANCELED);
    const row = await tx
      .updateTable('billing_subscriptions')
      .set({ status: s.status, cancel_at_period_end: s.cancel_at_period_end === true, updated_at: new Date() })
      .where('id', '=', localId)
      .returningAll()
      .executeTakeFirstOrThrow();
    await logActivity(tx, { userId, action, subject: 'billing_subscription', subjectId: localId, properties: { provider_subscription_id: s.id } });
    return row;
  });
}

export type SubscriptionActionView = BillingSubscriptionView & { cancel_at_period_end: boolean };
const actionView = (r: Parameters<typeof subscriptionView>[0]): SubscriptionActionView => ({ ...subscriptionView(r), cancel_at_period_end: r.cancel_at_period_end });

export type BillingLockDeps = { readonly redis: Redis; readonly log: Logger };

/**
 * How long one change holds its subscription (three provider calls of at most 15 s each fit), and how
 * long another change of it waits for the first.
 */
const TURN_LOCK_MS = 60_000;
const TURN_WAIT_MS = 20_000;

/**
 * The changes made to one card-a subscription (cancel, reactivate, retry-payment, a deleted device's unit
 * taken off) take turns under one Redis lock, `billing_subscription_{provider id}`, held from before the
 * provider call until its answer is written (Redis, not a database lock: no transaction stays open across
 * a provider call). So the record holds what card-a applied last: of a cancel and a reactivate sent
 * together, the answer that arrived last was written before, though card-a had applied the other last.
 * Without the lock (Redis away, or a holder still running after the wait) a change goes on, the provider
 * deciding, unless it names `refusal`: then it is refused (503) and nothing is sent.
 */
export async function inSubscriptionTurn<T>(deps: BillingLockDeps, providerSubscriptionId: string, fn: () => Promise<T>, refusal?: string): Promise<T> {
  const lock = await acquireLock(deps.redis, `billing_subscription_${providerSubscriptionId}`, TURN_LOCK_MS, TURN_WAIT_MS, deps.log);
  try {
    if (!lock.held && refusal) throw errors.unavailable(refusal, { reason: 'provider_error' });
    return await fn();
  } finally {
    await lock.release();
  }
}

/** Schedules (true) or withdraws (false) the cancellation at the period end, in the subscription's turn. */
async function setCancellation(tdb: TenantDb, cardA: CardAClient | null, lockDeps: BillingLockDeps, actor: SubscriptionActor, profileId: string, subId: string, cancel: boolean) {
  // The records are checked first: another merchant's or profile's id is a 404 whatever the configuration.
  const row = await findSubscription(tdb, actor.access, profileId, subId);
  const c = client(cardA);
  // A subscription that has ended cannot be revived at the provider; a new one is needed.
  if (row.status === 'canceled') throw errors.businessRule(ALREADY_CANCELED);
  return inSubscriptionTurn(lockDeps, row.provider_subscription_id, async () => {
    const s = await atProvider(() => c.setCancelAtPeriodEnd(row.provider_subscription_id, cancel));
    return actionView(await record(tdb, actor.userId, row.id, s, cancel ? 'cancel_scheduled' : 'reactivated'));
  });
}

export function cancelSubscription(tdb: TenantDb, cardA: CardAClient | null, lockDeps: BillingLockDeps, actor: SubscriptionActor, profileId: string, subId: string): Promise<SubscriptionActionView> {
  return setCancellation(tdb, cardA, lockDeps, actor, profileId, subId, true);
}

export function reactivateSubscription(tdb: TenantDb, cardA: CardAClient | null, lockDeps: BillingLockDeps, actor: SubscriptionActor, profileId: string, subId: string): Promise<SubscriptionActionView> {
  return setCancellation(tdb, cardA, lockDeps, actor, profileId, subId, false);
}

/**
 * Pays the newest open bill, in the subscription's turn (`inSubscriptionTurn`): of two retries, the
 * second finds the bill the first paid and answers NOTHING_TO_RETRY, where it could read the invoice
 * still open, retry it while card-a was charging it, and report PAYMENT_FAILED for a paid bill.
 */
export async function retrySubscriptionPayment(
  tdb: TenantDb,
  cardA: CardAClient | null,
  lockDeps: BillingLockDeps,
  actor: SubscriptionActor,
  profileId: string,
  subId: string,
): Promise<SubscriptionActionView> {
  // The records are checked first: another merchant's or profile's id is a 404 whatever the configuration.
  const row = await findSubscription(tdb, actor.access, profileId, subId);
  const c = client(cardA);
  if (row.status === 'canceled') throw errors.businessRule(ALREADY_CANCELED);
  return inSubscriptionTurn(lockDeps, row.provider_subscription_id, async () => {
    const open = await atProvider(() => c.listInvoices({ customer: row.customer_id, subscription: row.provider_subscription_id, status: 'open', limit: 1 }));
    if (!open[0]) throw errors.businessRule(NOTHING_TO_RETRY);
    await atProvider(() => c.retryInvoice(open[0]!.id), PAYMENT_FAILED);
    const s = await atProvider(() => c.retrieveSubscription(row.provider_subscription_id));
    return actionView(await record(tdb, actor.userId, row.id, s, 'payment_retried'));
  });
}

const billView = (i: CardAInvoice): PastBillView => ({
  id: i.id,
  subscription: i.subscription,
  status: i.status,
  amount_due: i.amount_due,
  attempt_count: i.attempt_count ?? 0,
  created_at: typeof i.created === 'number' ? new Date(i.created * 1000).toISOString() : null,
});

/** The profile's invoices at card-a, newest first (none before a card-a customer is attached). */
export async function pastBills(tdb: TenantDb, cardA: CardAClient | null, profileId: string): Promise<PastBillView[]> {
  const profile = await findBillingProfile(tdb, profileId);
  if (!profile.card_a_customer_id) return [];
  const c = client(cardA);
  return (await atProvider(() => c.listInvoices({ customer: profile.card_a_customer_id! }))).map(billView);
}

const csvCell = (v: string | number | null) => {
  const s = v === null ? '' : String(v);
  // Quote always; a leading formula character is neutralised for spreadsheet programs.
  return `"${(/^[=+\-@]/.test(s) ? `'${s}` : s).replace(/"/g, '""')}"`;
};

/** The past bills as CSV (amounts in cents, as card-a bills them). */
export async function exportPastBills(tdb: TenantDb, cardA: CardAClient | null, profileId: string): Promise<string> {
  const bills = await pastBills(tdb, cardA, profileId);
  const lines = [['id', 'subscription', 'status', 'amount_due', 'attempt_count', 'created_at'].join(',')];
  for (const b of bills) lines.push([b.id, b.subscription, b.status, b.amount_due, b.attempt_count, b.created_at].map(csvCell).join(','));
  return `${lines.join('\n')}\n`;
}
