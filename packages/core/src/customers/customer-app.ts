import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { accountOf, recentLedger } from './loyalty.ts';

/** `GET /customer/loyalties/{slug}`: the customer's balance and the merchant's active programs. */
export async function customerLoyalties(db: TenantDb, customerId: string) {
  const account = await accountOf(db, customerId);
  const programs = await db
    .selectFrom('loyalty_programs as p')
    .innerJoin('locations as l', 'l.id', 'p.location_id')
    .select(['p.location_id', 'l.name as location_name', 'p.points_per_euro'])
    .where('p.active', '=', true)
    .orderBy('l.name')
    .orderBy('l.id')
    .execute();
  return { points: account.points, lifetime_points: account.lifetime_points, programs: programs.map((p) => ({ location: { id: p.location_id, name: p.location_name }, points_per_euro: p.points_per_euro })) };
}

/** `GET /customer/loyalties/{slug}/{locationId}`: the program at one location with its rewards (and which are affordable) and recent points history. */
export async function customerLoyaltyDetail(db: TenantDb, customerId: string, locationId: string) {
  const p = await db
    .selectFrom('loyalty_programs as p')
    .innerJoin('locations as l', 'l.id', 'p.location_id')
    .select(['p.location_id', 'l.name as location_name', 'p.points_per_euro'])
    .where('p.location_id', '=', locationId)
    .where('p.active', '=', true)
    .executeTakeFirst();
  if (!p) throw errors.notFound('loyalty program');
  const account = await accountOf(db, customerId);
  const rewards = await db.selectFrom('loyalty_rewards').select(['id', 'name', 'points', 'discount']).where('location_id', '=', locationId).where('active', '=', true).orderBy('points').orderBy('id').execute();
  const history = await recentLedger(db, customerId, 20);
  return {
    location: { id: p.location_id, name: p.location_name },
    points_per_euro: p.points_per_euro,
    points: account.points,
    lifetime_points: account.lifetime_points,
    rewards: rewards.map((r) => ({ ...r, available: r.points <= account.points })),
    history: history.map((h) => ({ kind: h.kind, points: h.points, balance_after: h.balance_after, transaction_id: h.transaction_id, created_at: h.created_at.toISOString() })),
  };
}

/** `GET /customer/{slug}/locations`: the merchant's open locations, those the customer ordered at first (with their order count). */
export async function customerLocations(db: TenantDb, customerId: string) {
  const rows = await db
    .selectFrom('locations as l')
    .leftJoin('transactions as t', (j) => j.onRef('t.location_id', '=', 'l.id').on('t.customer_id', '=', customerId).on('t.status', 'not in', ['Pending', 'Cancelled']))
    .select(['l.id', 'l.name', 'l.address', 'l.timezone', (eb) => eb.fn.count<string>('t.id').as('orders')])
    .groupBy(['l.id', 'l.name', 'l.address', 'l.timezone'])
    .execute();
  return rows
    .map((r) => ({ id: r.id, name: r.name, address: r.address, timezone: r.timezone, orders: Number(r.orders) }))
    .sort((a, b) => b.orders - a.orders || a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}
