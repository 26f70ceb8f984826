import type { TenantDb, TenantTx } from '@pos/db';
import { errors } from '@pos/kernel';
import type { PricingOffer } from '@pos/domain/catalog/pricing';
import { rewardCost, storedOffers, type StoredOffer } from '@pos/domain/customers/reward-cost';
import { accountOf } from './loyalty.ts';

/**
 * A loyalty reward the customer chose, as the pricing function takes it: an amount off the basket,
 * priced after the location's offers. The reward must be active at the location, whose program must
 * be running (a paused one offers no reward), and the customer
 * must hold its points now (404 / 409 `insufficient_points`); the points are taken by the deferred
 * finalisation job after payment, once per transaction. `points` is its cost now, which the order
 * stores on its entry (`withRewardCost`) and pays, whatever the reward costs by then.
 */
export async function rewardAsOffer(db: TenantDb | TenantTx, input: { rewardId: string; customerId: string; locationId: string }): Promise<PricingOffer & { points: number }> {
  const reward = await db.selectFrom('loyalty_rewards').selectAll().where('id', '=', input.rewardId.toLowerCase()).executeTakeFirst();
  if (!reward || !reward.active || reward.location_id !== input.locationId) throw errors.notFound('reward');
  // A paused program keeps its rewards for when it runs again; meanwhile they are offered nowhere, so none is taken.
  const program = await db.selectFrom('loyalty_programs').select('active').where('location_id', '=', input.locationId).executeTakeFirst();
  if (!program?.active) throw errors.notFound('reward');
  const account = await accountOf(db, input.customerId);
  if (account.points < reward.points) throw errors.conflict('Not enough loyalty points.', { reason: 'insufficient_points' });
  return { id: reward.id, name: reward.name, rule: { kind: 'amount', amount: reward.discount }, item_ids: [], category_ids: [], min_basket: 0, channels: [], schedule: null, points: reward.points };
}

/** Orders whose rewards hold their points: not settled yet, or paid and not finalised (points not taken yet). */
const UNSETTLED = ['Pending', 'Awaiting Payment', 'Unpaid', 'Awaiting Capture'] as const;
/** An unsettled order older than this is an abandoned one: its reward no longer holds the customer's points. */
export const REWARD_HOLD_MS = 24 * 3600_000;

/**
 * Checks, inside the transaction that writes a new order carrying `reward` (at the cost it is priced
 * with), that the customer's points cover it beside the rewards of the customer's other orders that
 * still hold theirs (unsettled, or paid with the finalisation that takes the points still to run), each
 * at the cost its order froze. The account row is locked first, so two
 * orders of one customer are checked one after the other and one set of points pays for one reward
 * (409 `insufficient_points`, nothing written). An unsettled order older than a day (abandoned at the
 * kiosk) no longer holds its points.
 */
export async function checkRewardPoints(tx: TenantTx, customerId: string, reward: { id: string; points: number }, now: Date): Promise<void> {
  const account = await tx.selectFrom('loyalty_accounts').select('points').where('customer_id', '=', customerId).forUpdate().executeTakeFirst();
  const others = await tx
    .selectFrom('transactions as t')
    .select('t.offers')
    .where('t.customer_id', '=', customerId)
    .where((eb) =>
      eb.or([
        eb.and([eb('t.status', 'in', [...UNSETTLED]), eb('t.created_at', '>', new Date(now.getTime() - REWARD_HOLD_MS))]),
        eb.and([eb('t.status', '=', 'Complete'), eb.not(eb.exists(eb.selectFrom('transaction_steps as s').select('s.step').whereRef('s.transaction_id', '=', 't.id').where('s.step', '=', 'finalise')))]),
      ]),
    )
    .execute();
  const entries = others.flatMap((t) => storedOffers(t.offers));
  const current = await rewardsAmong(tx, [...new Set(entries.filter((o) => o.points === undefined).map((o) => o.id))]);
  const held = entries.reduce((sum, o) => sum + (rewardCost(o, current) ?? 0), 0);
  if ((account?.points ?? 0) - held < reward.points) throw errors.conflict('Not enough loyalty points.', { reason: 'insufficient_points' });
}

/** The rewards among a transaction's applied offers, with the points each takes: the cost the order froze, or (stored before costs were frozen) the reward's cost now. */
export async function rewardsOf(db: TenantDb | TenantTx, applied: readonly StoredOffer[]): Promise<Map<string, number>> {
  const current = await rewardsAmong(db, applied.filter((o) => o.points === undefined).map((o) => o.id));
  return new Map(applied.flatMap((o) => {
    const points = rewardCost(o, current);
    return points === undefined ? [] : [[o.id, points] as const];
  }));
}

/** The rewards among offer ids, with the points each costs now. */
export async function rewardsAmong(db: TenantDb | TenantTx, offerIds: readonly string[]): Promise<Map<string, number>> {
  if (offerIds.length === 0) return new Map();
  const rows = await db.selectFrom('loyalty_rewards').select(['id', 'points']).where('id', 'in', [...offerIds]).execute();
  return new Map(rows.map((r) => [r.id, r.points]));
}

/** Creates a reward at a location (tests and the demo; issue 16 puts the back-office routes on it). */
export async function createReward(db: TenantDb | TenantTx, input: { locationId: string; name: string; points: number; discount: number }, now: Date): Promise<string> {
  const id = Bun.randomUUIDv7();
  await db.insertInto('loyalty_rewards').values({ id, location_id: input.locationId, name: input.name, points: input.points, discount: input.discount, created_at: now }).execute();
  return id;
}
