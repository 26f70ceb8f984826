import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';

/** An attacker's and a careless user's pass over loyalty administration (spec 1 "Loyalty, setup, utilities"). */
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let owner: string;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('loyal-adv');
  other = await api.seed('loyal-adv-b');
  owner = await api.ownerToken(m);
}, 60_000);
afterAll(() => api.close());

const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);
const path = (locationId: string) => `/api/back-office/loyalty/${locationId}`;
const call = (method: string, p: string, body?: unknown, token = owner) => api.call(method, p, { token, body });
const state = async () => ({
  programs: await tdb().selectFrom('loyalty_programs').selectAll().orderBy('location_id').execute(),
  rewards: await tdb().selectFrom('loyalty_rewards').selectAll().orderBy('id').execute(),
});

describe('loyalty admin, adversarial', () => {
  test('the same reward listed twice is a 422 on the second entry, nothing written (it kept the last entry\'s values)', async () => {
    const loc = m.locations[0]!.id;
    const saved = await call('POST', path(loc), { active: true, points_per_euro: 2, rewards: [{ name: 'Free coffee', points: 100, discount: 300 }] });
    expect(saved.status).toBe(200);
    const id = saved.body.data.rewards[0].id;
    const before = await state();
    const r = await call('POST', path(loc), {
      active: false,
      points_per_euro: 9,
      rewards: [
        { id, name: 'Free coffee', points: 100, discount: 300 },
        { id, name: 'Free everything', points: 1, discount: 1_000_000 },
      ],
    });
    expect(r).toMatchObject({ status: 422, body: { errors: { 'rewards.1.id': ['The rewards.1.id field has a duplicate value.'] } } });
    expect(await state()).toEqual(before);
  });

  test('a mistyped key inside a reward is a 422 on it, not silently dropped; nothing written', async () => {
    const loc = m.locations[0]!.id;
    const before = await state();
    const r = await call('POST', path(loc), { active: true, points_per_euro: 2, rewards: [{ name: 'Ten percent', points: 50, discount: 100, percent: 10 }] });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors)).toEqual(['rewards.0.percent']);
    expect(await state()).toEqual(before);
  });

  test('bad numbers, another merchant\'s location (404), a location outside the grant (403), another location\'s reward (422); nothing written', async () => {
    const [loc0, loc1] = [m.locations[0]!.id, m.locations[1]!.id];
    const before = await state();
    for (const [body, field] of [
      [{ active: true, points_per_euro: 1.5 }, 'points_per_euro'],
      [{ active: true, points_per_euro: -1 }, 'points_per_euro'],
      [{ active: true, points_per_euro: 1001 }, 'points_per_euro'],
      [{ active: 'yes', points_per_euro: 1 }, 'active'],
      [{ active: true, points_per_euro: 1, rewards: [{ name: 'X', points: 0, discount: 1 }] }, 'rewards.0.points'],
      [{ active: true, points_per_euro: 1, rewards: [{ name: 'X', points: 1, discount: -5 }] }, 'rewards.0.discount'],
      [{ active: true, points_per_euro: 1, rewards: [{ name: ' ', points: 1, discount: 5 }] }, 'rewards.0.name'],
    ] as const) {
      const r = await call('POST', path(loc0), body);
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.errors)).toEqual([field]);
    }
    expect(await call('POST', path(other.locations[0]!.id), { active: true, points_per_euro: 5 })).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
    expect(await call('DELETE', path(other.locations[0]!.id))).toMatchObject({ status: 404 });
    const member = await makeMember(api, m, ['VIEW_LOYALTY', 'EDIT_LOYALTY', 'DELETE_LOYALTY'], { locationIds: [loc1] });
    expect(await call('POST', path(loc0), { active: false, points_per_euro: 0 }, member.token)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect(await call('DELETE', path(loc0), undefined, member.token)).toMatchObject({ status: 403 });
    const rewardOf0 = before.rewards.find((r) => r.location_id === loc0);
    if (rewardOf0) {
      expect(await call('POST', path(loc1), { active: true, points_per_euro: 1, rewards: [{ id: rewardOf0.id, name: 'Moved', points: 1, discount: 1 }] })).toMatchObject({
        status: 422,
        body: { errors: { 'rewards.0.id': ['The selected reward is invalid.'] } },
      });
    }
    expect(await state()).toEqual(before);
  });

  test('a program saved while its location is deleted: 200 (the program goes with the location) or 404, never a 500 on the foreign key', async () => {
    for (let round = 0; round < 6; round++) {
      const loc = (await call('POST', '/api/back-office/settings/locations', { name: `Pop-up ${round}`, timezone: 'Europe/Brussels', country: 'BE' })).body.data.id as string;
      const [save, del] = await Promise.all([
        call('POST', path(loc), { active: true, points_per_euro: 3, rewards: [{ name: 'Free waffle', points: 50, discount: 400 }] }),
        Bun.sleep(round % 2).then(() => call('DELETE', `/api/back-office/settings/locations/${loc}`)),
      ]);
      expect(del).toMatchObject({ status: 200, body: { status: 'success' } });
      if (save.status !== 200) expect(save).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
      expect(await tdb().selectFrom('loyalty_programs').select('location_id').where('location_id', '=', loc).execute()).toEqual([]);
    }
  });
});
