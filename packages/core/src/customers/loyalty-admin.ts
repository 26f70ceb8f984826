import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import type { BackofficeActor } from './customer-admin.ts';

/** The back office's view of a location's points program (active or not) with every reward. */
export async function loyaltyConfig(db: TenantDb, locationId: string) {
  const p = await db.selectFrom('loyalty_programs').selectAll().where('location_id', '=', locationId).executeTakeFirst();
  if (!p) return null;
  const rewards = await db.selectFrom('loyalty_rewards').select(['id', 'name', 'points', 'discount', 'active']).where('location_id', '=', p.location_id).orderBy('points').orderBy('id').execute();
  // The stored id, not the path's spelling (a UUID given in upper case names the same location).
  return { location_id: p.location_id, active: p.active, points_per_euro: p.points_per_euro, rewards, updated_at: p.updated_at.toISOString() };
}

/**
 * `GET /loyalty/{locationId}/subscription`: the loyalty module is part of the merchant's plan (no
 * separate billing exists), so this reports whether the program runs and how many members it has.
 */
export async function loyaltySubscription(db: TenantDb, locationId: string) {
  const p = await db.selectFrom('loyalty_programs').select('active').where('location_id', '=', locationId).executeTakeFirst();
  const members = Number((await db.selectFrom('loyalty_accounts').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n);
  const status: 'active' | 'paused' | 'not_configured' = p ? (p.active ? 'active' : 'paused') : 'not_configured';
  return { location_id: locationId.toLowerCase(), plan: 'included', status, members };
}

export interface LoyaltyInput {
  active: boolean;
  points_per_euro: number;
  rewards?: { id?: string; name: string; points: number; discount: number; active?: boolean }[];
}

/**
 * `POST /loyalty/{locationId}`: creates or updates the program; with `rewards`, each one with an `id`
 * of this location is updated, one without is created, and a reward left out is deactivated (kept
 * for the ledger's history). An `id` that is not one of this location's rewards is a 422.
 */
export async function saveLoyalty(db: TenantDb, actor: BackofficeActor, anyCaseLocationId: string, input: LoyaltyInput, now: Date) {
  const locationId = anyCaseLocationId.toLowerCase();
  await db.transaction().execute(async (tx) => {
    // The location is held FOR SHARE until the program commits: one deleted at the same moment either
    // waits for this save (and takes the program with it) or is gone first, the 404 a later save gets
    // (it was a 500 on the foreign key).
    if (!(await tx.selectFrom('locations').select('id').where('id', '=', locationId).forShare().executeTakeFirst())) throw errors.notFound('location');
    await tx
      .insertInto('loyalty_programs')
      .values({ location_id: locationId, active: input.active, points_per_euro: input.points_per_euro, created_at: now, updated_at: now })
      .onConflict((oc) => oc.column('location_id').doUpdateSet({ active: input.active, points_per_euro: input.points_per_euro, updated_at: now }))
      .execute();
    if (input.rewards) {
      const existing = new Set((await tx.selectFrom('loyalty_rewards').select('id').where('location_id', '=', locationId).execute()).map((r) => r.id));
      const kept: string[] = [];
      const listed = new Set<string>();
      for (const [i, r] of input.rewards.entries()) {
        if (r.id) {
          // One entry per reward: the same id twice kept only the last entry's values, silently.
          if (listed.has(r.id)) throw errors.field(`rewards.${i}.id`, `The rewards.${i}.id field has a duplicate value.`);
          listed.add(r.id);
          if (!existing.has(r.id)) throw errors.field(`rewards.${i}.id`, 'The selected reward is invalid.');
          await tx.updateTable('loyalty_rewards').set({ name: r.name.trim(), points: r.points, discount: r.discount, active: r.active ?? true }).where('id', '=', r.id).execute();
          kept.push(r.id);
        } else {
          const id = Bun.randomUUIDv7();
          await tx.insertInto('loyalty_rewards').values({ id, location_id: locationId, name: r.name.trim(), points: r.points, discount: r.discount, active: r.active ?? true, created_at: now }).execute();
          kept.push(id);
        }
      }
      let off = tx.updateTable('loyalty_rewards').set({ active: false }).where('location_id', '=', locationId);
      if (kept.length) off = off.where('id', 'not in', kept);
      await off.execute();
    }
    await logActivity(tx, { userId: actor.userId, action: 'updated', subject: 'loyalty_program', subjectId: locationId, properties: { active: input.active, points_per_euro: input.points_per_euro } });
  });
  return (await loyaltyConfig(db, locationId))!;
}

/** `DELETE /loyalty/{locationId}`: the program and its rewards go; balances stay (they belong to customers). 404 without a program. */
export async function deleteLoyalty(db: TenantDb, actor: BackofficeActor, anyCaseLocationId: string) {
  const locationId = anyCaseLocationId.toLowerCase();
  await db.transaction().execute(async (tx) => {
    const gone = await tx.deleteFrom('loyalty_programs').where('location_id', '=', locationId).executeTakeFirst();
    if (Number(gone.numDeletedRows) === 0) throw errors.notFound('loyalty program');
    await tx.updateTable('loyalty_rewards').set({ active: false }).where('location_id', '=', locationId).execute();
    await logActivity(tx, { userId: actor.userId, action: 'deleted', subject: 'loyalty_program', subjectId: locationId });
  });
}
