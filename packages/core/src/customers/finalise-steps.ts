import type { TenantDb } from '@pos/db';
import { pointsEarned } from '@pos/domain/customers/loyalty-points';
import type { TransactionRow } from '../payments/transaction-records.ts';
import { movePoints, programAt } from './loyalty.ts';
import { addTimelineEvent } from './timeline.ts';
import { storedOffers } from '@pos/domain/customers/reward-cost';
import { rewardsOf } from './rewards.ts';

/** The columns of a transaction the finalisation steps read (the job reads only these). */
export const FINALISE_COLUMNS = ['id', 'location_id', 'customer_id', 'channel', 'order_no', 'receipt_no', 'total', 'tip_amount', 'offers', 'is_test'] as const;
export type FinaliseTransaction = Pick<TransactionRow, (typeof FINALISE_COLUMNS)[number]>;

/** One step of the deferred finalisation job: answers a one-line outcome, throws on failure. */
export interface FinaliseStep {
  readonly name: string;
  readonly run: (t: FinaliseTransaction) => Promise<string>;
}

/**
 * The customer steps of the deferred finalisation job (spec 3 "Post-capture sequence"): loyalty earn,
 * offer redemption, the customer timeline and the kiosk customer name. Each is idempotent (a unique
 * row per transaction), so a job that runs twice earns, redeems and records once.
 */
export function customerFinaliseSteps(db: TenantDb, now: () => Date = () => new Date()): FinaliseStep[] {
  return [
    {
      name: 'loyalty_earn',
      run: async (t) => {
        if (!t.customer_id) return 'skipped: no customer';
        // A test-mode order took no money: it earns no points a real reward could later be paid with.
        if (t.is_test) return 'skipped: test mode';
        const program = await programAt(db, t.location_id);
        if (!program) return 'skipped: no loyalty program at this location';
        const points = pointsEarned(t.total, t.tip_amount, program.points_per_euro);
        if (points === 0) return 'skipped: 0 points';
        const r = await movePoints(db, { customerId: t.customer_id, kind: 'earn', points, transactionId: t.id }, now());
        return r ? `earned ${points} points (balance ${r.balance})` : 'skipped: already earned';
      },
    },
    {
      // Offers count a redemption; a loyalty reward (priced as an offer) takes its points, once, at the
      // cost the order froze when it applied the reward (the back office may have changed it since).
      name: 'offer_redemption',
      run: async (t) => {
        const applied = storedOffers(t.offers);
        if (applied.length === 0) return 'skipped: no offer';
        const rewards = await rewardsOf(db, applied);
        const offers = applied.filter((o) => !rewards.has(o.id)).map((o) => ({ offer_id: o.id, transaction_id: t.id, customer_id: t.customer_id, discount: o.discount, created_at: now() }));
        const parts: string[] = [];
        if (offers.length > 0) {
          const r = await db.insertInto('offer_redemptions').values(offers).onConflict((oc) => oc.columns(['offer_id', 'transaction_id']).doNothing()).executeTakeFirst();
          parts.push(`redeemed ${Number(r.numInsertedOrUpdatedRows ?? 0n)} of ${offers.length} offer(s)`);
        }
        for (const [rewardId, points] of rewards) {
          if (!t.customer_id) throw new Error(`reward ${rewardId} without a customer`);
          // Nor does it spend the customer's real points.
          if (t.is_test) {
            parts.push(`reward ${rewardId}: skipped: test mode`);
            continue;
          }
          const r = await movePoints(db, { customerId: t.customer_id, kind: 'redeem', points, transactionId: t.id, rewardId }, now());
          parts.push(r ? `reward ${rewardId}: -${points} points (balance ${r.balance})` : `reward ${rewardId}: already redeemed`);
        }
        return parts.join('; ');
      },
    },
    {
      name: 'customer_timeline',
      run: async (t) => {
        if (!t.customer_id) return 'skipped: no customer';
        const added = await addTimelineEvent(
          db,
          t.customer_id,
          'order_paid',
          t.id,
          { order_no: t.order_no, receipt_no: t.receipt_no, channel: t.channel, location_id: t.location_id, total: t.total, offers: Array.isArray(t.offers) ? t.offers.length : 0 },
          now(),
        );
        return added ? 'recorded order_paid' : 'skipped: already recorded';
      },
    },
    {
      name: 'kiosk_customer_name',
      run: async (t) => {
        if (!t.customer_id) return 'skipped: no customer';
        if (t.channel !== 'kiosk') return 'skipped: not a kiosk order';
        const c = await db.selectFrom('customers').select('name').where('id', '=', t.customer_id).executeTakeFirst();
        if (!c?.name) return 'skipped: the customer has no name';
        // Still this customer's order: an erasure committed since the read above unlinked it, and the name must not come back.
        const r = await db.updateTable('transactions').set({ customer_name: c.name }).where('id', '=', t.id).where('customer_id', '=', t.customer_id).where('customer_name', 'is', null).executeTakeFirst();
        return Number(r.numUpdatedRows) > 0 ? 'set' : 'skipped: already set';
      },
    },
  ];
}
