import { sql } from 'kysely';
import { bindTenant, type CentralDb } from '@pos/db';
import { isUuid } from '@pos/domain/ids';
import { ProviderError } from '@pos/providers/shared/provider-error';
import { AI_CREDITS_KIND, creditPurchase, type TakenPayment } from '../generation/ai-credit-purchases.ts';
import type { WebhookDeps } from './card-b-webhook.ts';
import type { WebhookLogStatus } from './webhook-log.ts';
import { tenantOfLocation } from './tenant-resolution.ts';
import { obj, str, type Obj } from './payload.ts';

/**
 * card-a's events about an AI credits purchase (`metadata.kind = ai_credits`): its checkout completed or
 * its saved-card charge succeeded. The event only says which object to look at: what was taken is read
 * back from card-a, and credits the purchase only for its own amount and currency (docs/decisions.md).
 */

/** The merchant named in the purchase's metadata (it outlives any location), else the location's. */
export async function aiCreditsTenant(db: CentralDb, metadata: Obj): Promise<{ merchantId: string; tenantDatabase: string } | null> {
  const merchant = str(metadata.merchant_id);
  if (merchant && isUuid(merchant)) {
    const r = await sql<{ id: string; tenant_database: string }>`
      select m.id, m.tenant_database from merchants m join pg_namespace n on n.nspname = m.tenant_database where m.id = ${merchant}::uuid`.execute(db);
    const row = r.rows[0];
    if (row) return { merchantId: row.id, tenantDatabase: row.tenant_database };
  }
  const t = await tenantOfLocation(db, str(metadata.location_id) ?? '');
  return t ? { merchantId: t.merchantId, tenantDatabase: t.tenantDatabase } : null;
}

/** Credits the purchase when card-a confirms the payment. `account` is the envelope's connected account, if any. */
export async function creditFromCardAEvent(deps: WebhookDeps, tenantDatabase: string, e: { type: string; object: Obj; account: string | null }): Promise<WebhookLogStatus> {
  // A connected account's own payment never pays for the platform's credits.
  if (e.account) return 'ignored';
  const purchaseId = str(obj(e.object.metadata).purchase_id);
  const id = str(e.object.id);
  if (!purchaseId || !id) return 'ignored';
  const cardA = deps.providers.cardA;
  // Failed (replayable from the back office) rather than believed from the payload.
  if (!cardA) throw new Error('card_a_not_configured');
  const taken = await takenAtCardA(cardA, e.type, id, purchaseId);
  if (!taken) return 'ignored';
  await creditPurchase(bindTenant(deps.db, tenantDatabase), purchaseId, taken);
  return 'processed';
}

async function takenAtCardA(cardA: NonNullable<WebhookDeps['providers']['cardA']>, type: string, id: string, purchaseId: string): Promise<TakenPayment | null> {
  try {
    if (type === 'checkout.session.completed') {
      const s = await cardA.retrieveCheckoutSession(id);
      return s.payment_status === 'paid' && s.metadata.kind === AI_CREDITS_KIND && s.metadata.purchase_id === purchaseId ? { ref: s.id, amount: s.amount_total, currency: s.currency } : null;
    }
    const pi = await cardA.retrievePaymentIntent(id);
    return pi.status === 'succeeded' && pi.metadata.kind === AI_CREDITS_KIND && pi.metadata.purchase_id === purchaseId ? { ref: pi.id, amount: pi.amount, currency: pi.currency } : null;
  } catch (err) {
    // An object card-a does not know (on the platform account) took no money for us.
    if (err instanceof ProviderError && err.status === 404) return null;
    throw err;
  }
}
