import type Redis from 'ioredis';
import type { CentralDb } from '@pos/db';
import type { Logger } from '@pos/kernel';
import type { PaymentProviders } from '@pos/core/payments/payment-providers';
import { findStaleStarts, settleStaleStarts } from '@pos/core/payments/stale-start-sweep';
import { eachMerchant } from './each-merchant.ts';

export interface StaleStartSweepSummary {
  readonly merchants: number;
  /** Starts the provider was asked about. */
  readonly asked: number;
  /** Of those, the ones now Complete (paid, and no webhook or poll had told us). */
  readonly completed: number;
  /** Merchants whose sweep threw, and starts whose provider could not be asked (logged). */
  readonly errors: number;
}

/**
 * Asks the providers about the payments left `Awaiting Payment` (`findStaleStarts`) of every merchant
 * (or only `tenantDatabase`), and captures with their answers. A payment found paid this way is
 * logged at warning level: its webhook and its kiosk's poll were both lost.
 */
export async function sweepStaleStarts(db: CentralDb, redis: Redis, providers: PaymentProviders, now: Date, log: Logger, tenantDatabase?: string): Promise<StaleStartSweepSummary> {
  let asked = 0;
  let completed = 0;
  let failed = 0;
  const { merchants, errors } = await eachMerchant(db, log, 'stale payment sweep failed for a merchant', tenantDatabase, async (tdb, m) => {
    const ids = await findStaleStarts(tdb, now);
    if (!ids.length) return;
    const outcomes = await settleStaleStarts({ tdb, tenantDatabase: m.tenant_database, redis, providers, log, now: () => new Date() }, ids);
    asked += outcomes.length;
    const paid = outcomes.filter((o) => o.status === 'Complete');
    completed += paid.length;
    failed += outcomes.filter((o) => o.status === 'error').length;
    if (paid.length) log.warn('payments found paid by the stale payment sweep', { merchant_id: m.id, transactions: paid.map((o) => o.id) });
  });
  return { merchants, asked, completed, errors: errors + failed };
}
