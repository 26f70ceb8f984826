import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';
import { makeCustomer } from '../customer-account/customer-test-support.ts';

// Loyalty administration per location on real PostgreSQL.
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let owner: string;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('loyal');
  other = await api.seed('loyal-b');
  owner = await api.ownerToken(m);
});
afterAll(() => api.close());

const tdb = () => bindTenant(api.deps.db, m.merchant.tenant_database);
const path = (locationId: string, tail = '') => `/api/back-office/loyalty/${locationId}${tail}`;
const call = (method: string, p: string, body?: unknown, token = owner) => api.call(method, p, { token, body });

describe('loyalty admin', () => {
  test('GET answers the seeded program; null where none', async () => {
    const r = await call('GET', path(m.locations[0]!.id));
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ location_id: m.locations[0]!.id, active: true, points_per_euro: 1, rewards: [] });
    expect(await call('GET', path(m.locations[1]!.id))).toMatchObject({ status: 200, body: { data: null } });
  });

  test('a {locationId} spelled in upper case is the same location: the grant admits it, answers carry the stored id', async () => {
    const loc = m.locations[0]!.id;
    const upper = loc.toUpperCase();
    const viewer = await makeMember(api, m, ['VIEW_LOYALTY', 'EDIT_LOYALTY'], { locationIds: [loc] });
    for (const token of [owner, viewer.token]) {
      const r = await call('GET', path(upper), undefined, token);
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ location_id: loc, active: true, points_per_euro: 1 });
      expect(await call('GET', path(upper, '/subscription'), undefined, token)).toMatchObject({ status: 200, body: { data: { location_id: loc, status: 'active' } } });
    }
    const saved = await call('POST', path(upper), { active: true, points_per_euro: 1 }, viewer.token);
    expect(saved).toMatchObject({ status: 200, body: { data: { location_id: loc, active: true, points_per_euro: 1 } } });
    // Still refused outside the grant, whatever the spelling.
    expect(await call('GET', path(m.locations[1]!.id.toUpperCase()), undefined, viewer.token)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
  });

  test('POST creates and updates the program and its rewards; a reward left out is deactivated', async () => {
    const loc = m.locations[1]!.id;
    const r = await call('POST', path(loc), { active: true, points_per_euro: 2, rewards: [{ name: 'Coffee', points: 10, discount: 250 }, { name: 'Cake', points: 20, discount: 400 }] });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({
      location_id: loc,
      active: true,
      points_per_euro: 2,
      rewards: [
        { id: expect.any(String), name: 'Coffee', points: 10, discount: 250, active: true },
        { id: expect.any(String), name: 'Cake', points: 20, discount: 400, active: true },
      ],
      updated_at: expect.any(String),
    });
    const [coffee, cake] = r.body.data.rewards;
    const u = await call('POST', path(loc), { active: false, points_per_euro: 3, rewards: [{ id: coffee.id, name: 'Big coffee', points: 12, discount: 300 }] });
    expect(u.body.data).toMatchObject({ active: false, points_per_euro: 3, rewards: [{ id: coffee.id, name: 'Big coffee', points: 12, discount: 300, active: true }, { id: cake.id, active: false }] });
    const foreignReward = await call('POST', path(loc), { active: true, points_per_euro: 1, rewards: [{ id: crypto.randomUUID(), name: 'X', points: 1, discount: 1 }] });
    expect(foreignReward.status).toBe(422);
    expect(foreignReward.body.errors).toEqual({ 'rewards.0.id': ['The selected reward is invalid.'] });
    // The refused request changed nothing.
    expect((await call('GET', path(loc))).body.data).toMatchObject({ active: false, points_per_euro: 3 });
    expect((await call('POST', path(loc), { active: true, points_per_euro: 5000 })).status).toBe(422);
    // Numbers are JSON numbers: a string is refused on its field, never converted ("0x10" is not 16).
    expect(await call('POST', path(loc), { active: true, points_per_euro: '5', rewards: [{ name: 'R', points: '5', discount: '0x10' }] })).toMatchObject({
      status: 422,
      body: {
        errors: {
          points_per_euro: ['The points_per_euro field must be an integer from 0 to 1000.'],
          'rewards.0.points': ['The rewards.0.points field is invalid: expected integer.'],
          'rewards.0.discount': ['The rewards.0.discount field is invalid: expected integer.'],
        },
      },
    });
    expect((await call('GET', path(loc))).body.data).toMatchObject({ active: false, points_per_euro: 3 });
    const log = await tdb().selectFrom('activity_logs').select(['action', 'subject', 'subject_id']).where('subject', '=', 'loyalty_program').where('subject_id', '=', loc).execute();
    expect(log.length).toBe(2);
  });

  test('a reward whose name is only spaces is a 422 on its field and stores nothing', async () => {
    const loc = m.locations[1]!.id;
    const before = (await call('GET', path(loc))).body.data;
    const r = await call('POST', path(loc), { active: true, points_per_euro: 1, rewards: [{ name: '   ', points: 10, discount: 100 }] });
    expect(r.status).toBe(422);
    expect(r.body.errors).toEqual({ 'rewards.0.name': ['The name field is required and may not be greater than 100 characters.'] });
    expect((await call('GET', path(loc))).body.data).toEqual(before);
    expect(await tdb().selectFrom('loyalty_rewards').select('id').where('name', '=', '').execute()).toEqual([]);
  });

  test('subscription reports status and members', async () => {
    await makeCustomer(api, m);
    const r = await call('GET', path(m.locations[0]!.id, '/subscription'));
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ location_id: m.locations[0]!.id, plan: 'included', status: 'active' });
    expect(r.body.data.members).toBeGreaterThanOrEqual(1);
  });

  test('DELETE removes the program, deactivates rewards, keeps balances; 404 when absent', async () => {
    const loc = m.locations[1]!.id;
    await call('POST', path(loc), { active: true, points_per_euro: 1, rewards: [{ name: 'Tea', points: 5, discount: 100 }] });
    const c = await makeCustomer(api, m);
    await tdb().updateTable('loyalty_accounts').set({ points: 9 }).where('customer_id', '=', c.id).execute();
    expect(await call('DELETE', path(loc))).toMatchObject({ status: 200, body: { status: 'success' } });
    expect((await call('GET', path(loc))).body.data).toBeNull();
    expect((await tdb().selectFrom('loyalty_rewards').select('active').where('location_id', '=', loc).execute()).every((r) => !r.active)).toBe(true);
    expect((await tdb().selectFrom('loyalty_accounts').select('points').where('customer_id', '=', c.id).executeTakeFirstOrThrow()).points).toBe(9);
    expect(await call('DELETE', path(loc))).toMatchObject({ status: 404, body: { message: 'Unable to locate the loyalty program you requested.' } });
  });

  test('permissions per route, location scope, another merchant\'s location is a 404', async () => {
    const loc = m.locations[0]!.id;
    const viewer = await makeMember(api, m, ['VIEW_LOYALTY'], { allLocations: true });
    expect((await call('GET', path(loc), undefined, viewer.token)).status).toBe(200);
    expect(await call('GET', path(loc, '/subscription'), undefined, viewer.token)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect((await call('POST', path(loc), { active: true, points_per_euro: 1 }, viewer.token)).status).toBe(403);
    expect((await call('DELETE', path(loc), undefined, viewer.token)).status).toBe(403);
    const editor = await makeMember(api, m, ['EDIT_LOYALTY'], { allLocations: true });
    expect((await call('GET', path(loc, '/subscription'), undefined, editor.token)).status).toBe(200);
    expect((await call('POST', path(loc), { active: true, points_per_euro: 1 }, editor.token)).status).toBe(200);
    expect((await call('DELETE', path(loc), undefined, editor.token)).status).toBe(403);
    const elsewhere = await makeMember(api, m, ['VIEW_LOYALTY'], { locationIds: [m.locations[1]!.id] });
    expect((await call('GET', path(loc), undefined, elsewhere.token)).status).toBe(403);
    const deleter = await makeMember(api, m, ['DELETE_LOYALTY'], { allLocations: true });
    expect((await call('DELETE', path(loc), undefined, deleter.token)).status).toBe(200);
    for (const [method, tail, body] of [['GET', ''], ['GET', '/subscription'], ['POST', '', { active: true, points_per_euro: 9 }], ['DELETE', '']] as [string, string, unknown?][]) {
      expect([method, tail, (await call(method, path(other.locations[0]!.id, tail), body)).status]).toEqual([method, tail, 404]);
    }
    const otherProgram = await bindTenant(api.deps.db, other.merchant.tenant_database).selectFrom('loyalty_programs').select('points_per_euro').where('location_id', '=', other.locations[0]!.id).executeTakeFirst();
    expect(otherProgram).toEqual({ points_per_euro: 1 });
  });
});
