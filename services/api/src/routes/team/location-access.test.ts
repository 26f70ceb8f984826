import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { accessCan, loadAccess, requirePermission } from '@pos/core/auth/access';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { permission } from '../../plugins/guards.ts';
import { makeMember, tenantOf } from './team.test-support.ts';

let api: TestApi;
let a: DemoSeedResult;

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('access');
});
afterAll(() => api.close());

describe('location grant scopes permission checks (loadAccess/accessCan on real tenant data)', () => {
  test('a member granted location [0] holds the slug there only', async () => {
    const m = await makeMember(api, a, ['VIEW_DEVICES'], { locationIds: [a.locations[0]!.id] });
    const access = await loadAccess(tenantOf(api, a), m.userId, false);
    expect(access.allLocations).toBe(false);
    expect(accessCan(access, 'VIEW_DEVICES')).toBe(true);
    expect(accessCan(access, 'VIEW_DEVICES', a.locations[0]!.id)).toBe(true);
    expect(accessCan(access, 'VIEW_DEVICES', a.locations[1]!.id)).toBe(false);
    expect(accessCan(access, 'EDIT_DEVICES', a.locations[0]!.id)).toBe(false);
    // UUIDs are case-insensitive: the upper-case spelling of a granted location is granted too.
    expect(accessCan(access, 'VIEW_DEVICES', a.locations[0]!.id.toUpperCase())).toBe(true);
    expect(accessCan(access, 'VIEW_DEVICES', a.locations[1]!.id.toUpperCase())).toBe(false);
    expect(() => requirePermission(access, 'VIEW_DEVICES', a.locations[1]!.id)).toThrow('Unauthorized: Insufficient permissions');
  });

  test("permission(slug, 'locationId') reads the route param", async () => {
    const m = await makeMember(api, a, ['VIEW_DEVICES'], { locationIds: [a.locations[0]!.id] });
    const access = await loadAccess(tenantOf(api, a), m.userId, false);
    const guard = permission('VIEW_DEVICES', 'locationId');
    await expect(guard({ access: async () => access, params: { locationId: a.locations[0]!.id } })).resolves.toBeUndefined();
    await expect(guard({ access: async () => access, params: { locationId: a.locations[1]!.id } })).rejects.toThrow('Unauthorized: Insufficient permissions');
  });

  test('a grant changed through PUT /team/users/{id}/locations takes effect', async () => {
    const m = await makeMember(api, a, ['VIEW_DEVICES'], { locationIds: [a.locations[0]!.id] });
    const owner = (await api.call('POST', '/api/login', { body: { email: a.backoffice.email, password: a.backoffice.password } })).body.token;
    await api.call('PUT', `/api/back-office/settings/team/users/${m.userId}/locations`, { token: owner, body: { location_ids: [a.locations[1]!.id] } });
    const access = await loadAccess(tenantOf(api, a), m.userId, false);
    expect(accessCan(access, 'VIEW_DEVICES', a.locations[0]!.id)).toBe(false);
    expect(accessCan(access, 'VIEW_DEVICES', a.locations[1]!.id)).toBe(true);
  });

  test('a global user (all_locations) reaches every location, including one created later', async () => {
    const m = await makeMember(api, a, ['VIEW_DEVICES'], { locationIds: [], allLocations: true });
    const later = Bun.randomUUIDv7();
    await tenantOf(api, a).insertInto('locations').values({ id: later, name: 'Opened later', timezone: 'Europe/Brussels', country: 'BE', address: null, vat_no: null, est_no: null, pos_tenders: '{}' }).execute();
    const access = await loadAccess(tenantOf(api, a), m.userId, false);
    expect(access.allLocations).toBe(true);
    for (const id of [...a.locations.map((l) => l.id), later, crypto.randomUUID()]) expect(accessCan(access, 'VIEW_DEVICES', id)).toBe(true);
    // all_locations widens the places, never the permissions.
    expect(accessCan(access, 'EDIT_DEVICES', later)).toBe(false);
  });

  test('the owner role holds everything everywhere; a member without grants holds no location', async () => {
    const ownerId = (await api.deps.db.selectFrom('users').select('id').where('email', '=', a.backoffice.email).executeTakeFirstOrThrow()).id;
    const owner = await loadAccess(tenantOf(api, a), ownerId, false);
    expect(owner.allLocations).toBe(true);
    expect(accessCan(owner, 'DELETE_USERS', a.locations[1]!.id)).toBe(true);
    const m = await makeMember(api, a, ['VIEW_DEVICES'], { locationIds: [] });
    const none = await loadAccess(tenantOf(api, a), m.userId, false);
    expect(accessCan(none, 'VIEW_DEVICES')).toBe(true);
    expect(accessCan(none, 'VIEW_DEVICES', a.locations[0]!.id)).toBe(false);
  });
});
