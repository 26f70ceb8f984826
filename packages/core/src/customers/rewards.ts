import type { TenantDb, TenantTx } from '@pos/db';
import { errors } from '@pos/kernel';
import type { PricingOffer } from '@pos/domain/catalog/pricing';
import { accountOf } from './loyalty.ts';

/**
 * A loyalty reward the customer chose, as the pricing function takes it: an amount off the basket,
 * priced after the location's offers. The reward must be active at the location and the customer
 * must hold its points now (404 / 409 `insufficient_points`); the points are taken by the deferred
 * finalisation job after payment, once per transaction.
 */
export async function rewardAsOffer(db: TenantDb | TenantTx, input: { rewardId: string; customerId: string; locationId: string }): Promise<PricingOffer> {
  const reward = await db.selectFrom('loyalty_rewards').selectAll().where('id', '=', input.rewardId.toLowerCase()).executeTakeFirst();
  if (!reward || !reward.active || reward.location_id !== input.locationId) throw errors.notFound('reward');
  const account = await accountOf(db, input.customerId);
  if (account.points < reward.points) throw errors.conflict('Not enough loyalty points.', { reason: 'insufficient_points' });
  return { id: reward.id, name: reward.name, rule: { kind: 'amount', amount: reward.discount }, item_ids: [], category_ids: [], min_basket: 0, channels: [], schedule: null };
}

/** The rewards among a transaction's applied offers (by id), with the points each costs. */
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
