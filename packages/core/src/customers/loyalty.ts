import type { TenantDb, TenantTx } from '@pos/db';
import { errors } from '@pos/kernel';

export interface LoyaltyProgramView {
  active: boolean;
  points_per_euro: number;
  rewards: { id: string; name: string; points: number; discount: number }[];
}

/** The location's points program (issue 16 administers it), or null when the location has none or it is off. */
export async function programAt(db: TenantDb | TenantTx, locationId: string): Promise<LoyaltyProgramView | null> {
  const p = await db.selectFrom('loyalty_programs').selectAll().where('location_id', '=', locationId).executeTakeFirst();
  if (!p || !p.active) return null;
  const rewards = await db.selectFrom('loyalty_rewards').select(['id', 'name', 'points', 'discount']).where('location_id', '=', locationId).where('active', '=', true).orderBy('points').orderBy('id').execute();
  return { active: true, points_per_euro: p.points_per_euro, rewards };
}

/** Creates or replaces a location's program (the demo seed and tests; issue 16 puts a route on it). */
export async function setProgram(db: TenantDb | TenantTx, locationId: string, pointsPerEuro: number, now: Date): Promise<void> {
  await db
    .insertInto('loyalty_programs')
    .values({ location_id: locationId, points_per_euro: pointsPerEuro, active: true, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('location_id').doUpdateSet({ points_per_euro: pointsPerEuro, active: true, updated_at: now }))
    .execute();
}

export async function accountOf(db: TenantDb | TenantTx, customerId: string): Promise<{ points: number; lifetime_points: number }> {
  const a = await db.selectFrom('loyalty_accounts').select(['points', 'lifetime_points']).where('customer_id', '=', customerId).executeTakeFirst();
  return a ?? { points: 0, lifetime_points: 0 };
}

export async function recentLedger(db: TenantDb | TenantTx, customerId: string, limit = 10) {
  return db
    .selectFrom('loyalty_ledger')
    .select(['kind', 'points', 'balance_after', 'transaction_id', 'created_at'])
    .where('customer_id', '=', customerId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

/**
 * Moves a customer's points by `delta` and writes the ledger entry, in one transaction: the account
 * row is locked (`FOR UPDATE`) first, so concurrent earns and redemptions serialise and the balance
 * always equals the ledger's sum. An entry that exists already (earn of a transaction, a reward of a
 * transaction) makes this a no-op answering null. A redemption beyond the balance is a 409.
 */
export async function movePoints(
  db: TenantDb,
  e: { customerId: string; kind: 'earn' | 'redeem' | 'adjust'; points: number; transactionId: string | null; rewardId?: string | null },
  now: Date,
): Promise<{ balance: number } | null> {
  return db.transaction().execute(async (tx) => {
    await tx.insertInto('loyalty_accounts').values({ customer_id: e.customerId, updated_at: now }).onConflict((oc) => oc.column('customer_id').doNothing()).execute();
    const acct = await tx.selectFrom('loyalty_accounts').select(['points']).where('customer_id', '=', e.customerId).forUpdate().executeTakeFirstOrThrow();
    const delta = e.kind === 'redeem' ? -Math.abs(e.points) : e.points;
    if (e.transactionId) {
      let q = tx.selectFrom('loyalty_ledger').select('id').where('transaction_id', '=', e.transactionId).where('kind', '=', e.kind);
      if (e.kind === 'redeem') q = q.where('reward_id', '=', e.rewardId ?? null);
      if (await q.executeTakeFirst()) return null;
    }
    const balance = acct.points + delta;
    if (balance < 0) throw errors.conflict('Not enough loyalty points.', { reason: 'insufficient_points' });
    await tx
      .insertInto('loyalty_ledger')
      .values({ id: Bun.randomUUIDv7(), customer_id: e.customerId, kind: e.kind, points: delta, balance_after: balance, transaction_id: e.transactionId, reward_id: e.rewardId ?? null, created_at: now })
      .execute();
    await tx
      .updateTable('loyalty_accounts')
      .set((eb) => ({ points: balance, lifetime_points: delta > 0 ? eb('lifetime_points', '+', delta) : eb.ref('lifetime_points'), updated_at: now }))
      .where('customer_id', '=', e.customerId)
      .execute();
    return { balance };
  });
}
