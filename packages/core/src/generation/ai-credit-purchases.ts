import { sql } from 'kysely';
import { AppError, errors } from '@pos/kernel';
import type { TenantDb } from '@pos/db';
import type { CardAClient } from '@pos/providers/card-a/card-a-client';
import { isUuid } from '@pos/domain/ids';
import { logActivity } from '../activity/log-activity.ts';
import { atProvider } from '../settings/billing-subscriptions.ts';
import { CREDIT_PACKAGES } from './ai-credits.ts';

/**
 * Buying AI photo credits (spec 1 "Loyalty, setup, utilities": `create-checkout-url`,
 * `purchase-with-default`). A purchase row is written first; the balance grows only when that row
 * turns `paid` (one guarded update, in the same transaction as the credit), so a webhook, a retry
 * and the synchronous answer together credit a package exactly once.
 */

export const PAYMENTS_NOT_CONFIGURED = 'Payments through card-a are not configured.';
export const NO_SAVED_CARD = 'No billing profile has a saved card; attach a payment method first.';
export const CARD_DECLINED = 'The card was declined.';
export const PURCHASE_IN_PROGRESS = 'This package is already being bought; check the credit balance before buying it again.';
/** A saved-card purchase of the same package started this recently and still pending is the same click (docs/decisions.md). */
const IN_FLIGHT = '2 minutes';
/** ... and one paid this recently too: a second click that arrived after the first one finished. */
const JUST_PAID = '10 seconds';
/** `metadata.kind` of the provider objects of a purchase: the webhook recognises them by it. */
export const AI_CREDITS_KIND = 'ai_credits';

export interface PurchaseContext {
  readonly userId: string;
  readonly merchantId: string;
}

function packageOf(id: string) {
  const p = CREDIT_PACKAGES.find((x) => x.id === id);
  if (!p) throw errors.field('package_id', `The package id must be one of ${CREDIT_PACKAGES.map((x) => x.id).join(', ')}.`);
  return p;
}

function provider(cardA: CardAClient | null): CardAClient {
  if (!cardA) throw errors.unavailable(PAYMENTS_NOT_CONFIGURED);
  return cardA;
}

/** The purchase row, and the provider metadata that leads the card-a event back to it (the merchant, else a location, finds the tenant). */
async function newPurchase(tdb: TenantDb, ctx: PurchaseContext, pkg: ReturnType<typeof packageOf>, method: 'checkout' | 'saved_card'): Promise<{ id: string; metadata: Record<string, string> }> {
  const id = Bun.randomUUIDv7();
  const location = await tdb.selectFrom('locations').select('id').orderBy('created_at').orderBy('id').limit(1).executeTakeFirst();
  if (!location) throw errors.businessRule('Add a location before buying credits.');
  await tdb.transaction().execute(async (tx) => {
    if (method === 'saved_card') {
      // A double-click must charge once: the merchant's credits row serialises the check and the insert,
      // and a pending (in flight, or its answer lost) or just-paid purchase of the package refuses the second.
      await tx.insertInto('ai_credits').values({ id: 1, balance: 0 }).onConflict((oc) => oc.column('id').doNothing()).execute();
      await tx.selectFrom('ai_credits').select('id').where('id', '=', 1).forUpdate().execute();
      const busy = await tx
        .selectFrom('ai_credit_purchases')
        .select('id')
        .where('method', '=', 'saved_card')
        .where('package_id', '=', pkg.id)
        .where((eb) =>
          eb.or([
            eb.and([eb('status', '=', 'pending'), eb('created_at', '>', sql<Date>`now() - ${IN_FLIGHT}::interval`)]),
            eb.and([eb('status', '=', 'paid'), eb('paid_at', '>', sql<Date>`now() - ${JUST_PAID}::interval`)]),
          ]),
        )
        .executeTakeFirst();
      if (busy) throw errors.conflict(PURCHASE_IN_PROGRESS);
    }
    await tx.insertInto('ai_credit_purchases').values({ id, package_id: pkg.id, credits: pkg.credits, amount: pkg.price, currency: pkg.currency, method, provider_ref: null, status: 'pending', created_by: ctx.userId, paid_at: null }).execute();
  });
  return { id, metadata: { kind: AI_CREDITS_KIND, purchase_id: id, merchant_id: ctx.merchantId, location_id: location.id } };
}

/** What card-a says was taken: from its own answer or read back from it, never from an event's payload. */
export interface TakenPayment {
  /** The checkout session or payment intent. */
  readonly ref: string;
  /** Cents. */
  readonly amount: number;
  readonly currency: string;
}

/**
 * Marks the purchase paid and credits its package, once: only the transition to `paid` credits, and
 * only for the purchase's own amount and currency. A `failed` purchase moves too: card-a's answer may
 * have been lost, or the intent still processing, when the request gave up. Returns the balance after
 * it, or null when nothing was credited (already paid, unknown, or another amount).
 */
export async function creditPurchase(tdb: TenantDb, purchaseId: string, taken: TakenPayment): Promise<number | null> {
  if (!isUuid(purchaseId)) return null;
  return tdb.transaction().execute(async (tx) => {
    const paid = await tx
      .updateTable('ai_credit_purchases')
      .set({ status: 'paid', paid_at: sql<Date>`now()`, provider_ref: sql<string>`coalesce(provider_ref, ${taken.ref})` })
      .where('id', '=', purchaseId)
      .where('status', 'in', ['pending', 'failed'])
      .where('amount', '=', taken.amount)
      .where(sql<string>`lower(currency)`, '=', taken.currency.toLowerCase())
      .returning(['credits', 'created_by'])
      .executeTakeFirst();
    if (!paid) return null;
    const row = await tx
      .insertInto('ai_credits')
      .values({ id: 1, balance: paid.credits })
      .onConflict((oc) => oc.column('id').doUpdateSet({ balance: sql<number>`ai_credits.balance + ${paid.credits}`, updated_at: sql<Date>`now()` }))
      .returning('balance')
      .executeTakeFirstOrThrow();
    await logActivity(tx, { userId: paid.created_by, action: 'credited', subject: 'ai_credit_purchase', subjectId: purchaseId, properties: { credits: paid.credits } });
    return row.balance;
  });
}

/** `POST /ai-photo/create-checkout-url`: the provider's hosted page for one package; paid, its webhook credits it. */
export async function createCreditsCheckout(
  tdb: TenantDb,
  cardA: CardAClient | null,
  ctx: PurchaseContext,
  input: { packageId: string; successUrl: string; cancelUrl: string },
): Promise<{ purchase_id: string; url: string }> {
  const pkg = packageOf(input.packageId);
  const client = provider(cardA);
  const { id, metadata } = await newPurchase(tdb, ctx, pkg, 'checkout');
  try {
    const session = await atProvider(() =>
      client.createCheckoutSession({ amount: pkg.price, currency: pkg.currency, productName: `${pkg.credits} AI photo credits`, successUrl: input.successUrl, cancelUrl: input.cancelUrl, metadata, idempotencyKey: `ai-credits-${id}` }),
    );
    await tdb.updateTable('ai_credit_purchases').set({ provider_ref: session.id }).where('id', '=', id).execute();
    return { purchase_id: id, url: session.url };
  } catch (e) {
    await tdb.updateTable('ai_credit_purchases').set({ status: 'failed' }).where('id', '=', id).execute();
    throw e;
  }
}

/**
 * `POST /ai-photo/purchase-with-default`: charges the package to the default card of a billing
 * profile's card-a customer (the given profile, else the oldest one with a customer) and credits it
 * at once; a decline is 422 and credits nothing.
 */
export async function purchaseWithDefault(
  tdb: TenantDb,
  cardA: CardAClient | null,
  ctx: PurchaseContext,
  input: { packageId: string; billingProfileId?: string },
): Promise<{ purchase_id: string; credits: number; balance: number }> {
  const pkg = packageOf(input.packageId);
  let q = tdb.selectFrom('billing_profiles').select(['id', 'card_a_customer_id']).where('card_a_customer_id', 'is not', null);
  if (input.billingProfileId !== undefined) {
    if (!isUuid(input.billingProfileId)) throw errors.notFound('billing profile');
    const exists = await tdb.selectFrom('billing_profiles').select('id').where('id', '=', input.billingProfileId).executeTakeFirst();
    if (!exists) throw errors.notFound('billing profile');
    q = q.where('id', '=', input.billingProfileId);
  }
  const profile = await q.orderBy('created_at').orderBy('id').executeTakeFirst();
  if (!profile?.card_a_customer_id) throw errors.businessRule(NO_SAVED_CARD);
  const client = provider(cardA);
  const customer = await atProvider(() => client.retrieveCustomer(profile.card_a_customer_id!));
  const card = customer.invoice_settings.default_payment_method;
  if (!card) throw errors.businessRule(NO_SAVED_CARD);
  const { id, metadata } = await newPurchase(tdb, ctx, pkg, 'saved_card');
  const fail = () => tdb.updateTable('ai_credit_purchases').set({ status: 'failed' }).where('id', '=', id).where('status', '=', 'pending').execute();
  let intent: Awaited<ReturnType<CardAClient['chargeSavedCard']>>;
  try {
    intent = await atProvider(
      () => client.chargeSavedCard({ amount: pkg.price, currency: pkg.currency, customer: customer.id, paymentMethod: card, metadata, idempotencyKey: `ai-credits-${id}` }),
      CARD_DECLINED,
    );
  } catch (e) {
    // A refusal took no money. Anything else (card-a away, its answer lost) may have charged the card:
    // the purchase stays pending, and card-a's signed payment_intent.succeeded credits it (or, that lost
    // too, the worker's sweep settles it with card-a: ai-credit-recovery.ts).
    if (e instanceof AppError && e.code === 'business_rule') await fail();
    throw e;
  }
  await tdb.updateTable('ai_credit_purchases').set({ provider_ref: intent.id }).where('id', '=', id).execute();
  if (intent.status !== 'succeeded') {
    // Not taken now (e.g. still processing): a later succeeded event from card-a still credits it.
    await fail();
    throw errors.businessRule(CARD_DECLINED);
  }
  // The provider's webhook for this intent may have credited it already: the balance is read either way.
  await creditPurchase(tdb, id, { ref: intent.id, amount: intent.amount, currency: intent.currency });
  const balance = (await tdb.selectFrom('ai_credits').select('balance').where('id', '=', 1).executeTakeFirst())?.balance ?? 0;
  return { purchase_id: id, credits: pkg.credits, balance };
}
