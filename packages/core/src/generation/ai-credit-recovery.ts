import type { TenantDb } from '@pos/db';
import type { CardAClient, CardAPaymentIntent } from '@pos/providers/card-a/card-a-client';
import { ProviderError } from '@pos/providers/shared/provider-error';
import { AI_CREDITS_KIND, creditPurchase, type TakenPayment } from './ai-credit-purchases.ts';

/**
 * Saved-card purchases of AI credits whose card-a answer was lost (`purchaseWithDefault` leaves them
 * `pending`): when card-a's `payment_intent.succeeded` never comes either (it never charged, or the
 * event was lost), the sweep asks card-a about each one and settles it: paid, credited through
 * `creditPurchase` (once, for the package's own amount and currency); no charge, `failed`.
 */

/** A pending purchase younger than this is left to its request and its webhook (the request gives up after 15 s). */
export const STALE_PURCHASE_AFTER_MS = 5 * 60_000;
/** Purchases asked about per sweep and merchant, oldest first (the next sweep takes the rest). */
export const STALE_PURCHASE_LIMIT = 50;

export interface StalePurchase {
  readonly id: string;
  readonly provider_ref: string | null;
}

/** Saved-card purchases still `pending` `STALE_PURCHASE_AFTER_MS` after they were made, oldest first. */
export function findStalePurchases(tdb: TenantDb, now: Date, limit = STALE_PURCHASE_LIMIT): Promise<StalePurchase[]> {
  return tdb
    .selectFrom('ai_credit_purchases')
    .select(['id', 'provider_ref'])
    .where('method', '=', 'saved_card')
    .where('status', '=', 'pending')
    .where('created_at', '<', new Date(now.getTime() - STALE_PURCHASE_AFTER_MS))
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

/** Intent states from which card-a may still take the money without a new request from us. */
const STILL_RUNNING = new Set(['processing', 'requires_capture']);

export type PurchaseAtCardA = { readonly kind: 'paid'; readonly taken: TakenPayment } | { readonly kind: 'running' } | { readonly kind: 'not_charged' };

/** What card-a's intents (those carrying this purchase's metadata) say about the purchase. */
export function purchaseAtCardA(intents: readonly CardAPaymentIntent[], purchaseId: string): PurchaseAtCardA {
  const ours = intents.filter((i) => i.metadata.kind === AI_CREDITS_KIND && i.metadata.purchase_id === purchaseId);
  const paid = ours.find((i) => i.status === 'succeeded');
  if (paid) return { kind: 'paid', taken: { ref: paid.id, amount: paid.amount, currency: paid.currency } };
  return ours.some((i) => STILL_RUNNING.has(i.status)) ? { kind: 'running' } : { kind: 'not_charged' };
}

/** The intents card-a has for the purchase: its stored intent when the answer came, else a search by its metadata. */
async function intentsOf(cardA: CardAClient, p: StalePurchase): Promise<CardAPaymentIntent[]> {
  if (p.provider_ref) {
    try {
      return [await cardA.retrievePaymentIntent(p.provider_ref)];
    } catch (e) {
      if (e instanceof ProviderError && e.status === 404) return [];
      throw e;
    }
  }
  return cardA.searchPaymentIntents(`metadata['purchase_id']:'${p.id}'`);
}

export type StalePurchaseOutcome = 'paid' | 'failed' | 'running' | 'unchanged';

/**
 * Asks card-a about one stale purchase and settles it. `paid` only when this call credited it (another
 * sweep, or the webhook, may have first: `unchanged`). A purchase marked `failed` that card-a charges
 * after all is still credited by its succeeded event (`creditPurchase` moves `failed` too).
 */
export async function settleStalePurchase(tdb: TenantDb, cardA: CardAClient, p: StalePurchase): Promise<StalePurchaseOutcome> {
  const at = purchaseAtCardA(await intentsOf(cardA, p), p.id);
  if (at.kind === 'running') return 'running';
  if (at.kind === 'paid') return (await creditPurchase(tdb, p.id, at.taken)) === null ? 'unchanged' : 'paid';
  const r = await tdb.updateTable('ai_credit_purchases').set({ status: 'failed' }).where('id', '=', p.id).where('status', '=', 'pending').executeTakeFirst();
  return r.numUpdatedRows > 0n ? 'failed' : 'unchanged';
}
