import type Redis from 'ioredis';
import type { CentralDb } from '@pos/db';
import type { Logger } from '@pos/kernel';
import type { CardAClient } from '@pos/providers/card-a/card-a-client';
import { findStalePurchases, settleStalePurchase } from '@pos/core/generation/ai-credit-recovery';
import { eachMerchant } from './each-merchant.ts';
import { claimFor } from './sweep-claim.ts';

/** A purchase asked about is not asked again for this long (another worker's sweep, or one still running at card-a). */
export const STALE_PURCHASE_ASK_EVERY_MS = 4 * 60_000;

export interface AiCreditPurchaseSweepSummary {
  readonly merchants: number;
  /** Purchases card-a was asked about. */
  readonly asked: number;
  /** Of those, the ones this sweep credited, and the ones it marked failed (card-a took nothing). */
  readonly paid: number;
  readonly failed: number;
  /** Merchants whose sweep threw, and purchases card-a could not be asked about (logged). */
  readonly errors: number;
}

/**
 * Settles the AI credit purchases left `pending` (card-a's answer and its event both lost) of every
 * merchant, or only `tenantDatabase` (`ai-credit-recovery.ts`). Each purchase is claimed in Redis
 * first, so two workers' sweeps do not both ask card-a; the credit is once either way (guarded update).
 */
export async function sweepAiCreditPurchases(db: CentralDb, redis: Redis | undefined, cardA: CardAClient, now: Date, log: Logger, tenantDatabase?: string): Promise<AiCreditPurchaseSweepSummary> {
  let asked = 0;
  let paid = 0;
  let failed = 0;
  let unanswered = 0;
  const { merchants, errors } = await eachMerchant(db, log, 'AI credit purchase sweep failed for a merchant', tenantDatabase, async (tdb, m) => {
    for (const p of await findStalePurchases(tdb, now)) {
      const key = `ai_credit_purchase_asked:${m.tenant_database}:${p.id}`;
      if (!(await claimFor(redis, key, STALE_PURCHASE_ASK_EVERY_MS))) continue;
      asked++;
      try {
        const outcome = await settleStalePurchase(tdb, cardA, p);
        if (outcome === 'paid') {
          paid++;
          // Its answer and its event were both lost: worth a look.
          log.warn('AI credit purchase found paid by the sweep', { merchant_id: m.id, purchase_id: p.id });
        } else if (outcome === 'failed') failed++;
      } catch (e) {
        unanswered++;
        log.error('AI credit purchase could not be settled', { merchant_id: m.id, purchase_id: p.id, err: e });
        // Not answered: the next sweep asks again.
        await redis?.del(key).catch(() => undefined);
      }
    }
  });
  return { merchants, asked, paid, failed, errors: errors + unanswered };
}
