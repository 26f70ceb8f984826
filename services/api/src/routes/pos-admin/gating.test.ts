import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { FIRST_PARTY_POS_REQUIRED } from '@pos/core/pos/first-party';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';
import { nothing } from './pos-admin.test-support.ts';

/**
 * The middleware of every back-office register-administration route (spec 2): auth, the
 * `first-party-pos` gate, `location-owner` on `/pos/{locationId}/...`, the route's permission
 * (scoped to the location grant), and `admin-vendor-override`.
 */

let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let ownerA: string;
let ownerB: string;

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('pos-gate-a');
  b = await api.seed('pos-gate-b');
  // merchant B is not on the first-party register
  await api.deps.db.updateTable('merchants').set({ pos_provider: null }).where('id', '=', b.merchant.id).execute();
  ownerA = await api.ownerToken(a);
  ownerB = await api.ownerToken(b);
});
afterAll(() => api.close());

interface RouteCase {
  method: string;
  path: (loc: string) => string;
  permission: string;
  body?: unknown;
  /** `/pos/{locationId}/...` (location-owner + grant). */
  located: boolean;
}

const id = nothing();
const L = (method: string, tail: string, permission: string, body?: unknown): RouteCase => ({ method, path: (loc) => `/pos/${loc}/${tail}`, permission, body, located: true });
const M = (method: string, tail: string, permission: string, body?: unknown): RouteCase => ({ method, path: () => `/pos/${tail}`, permission, body, located: false });

const ROUTES: RouteCase[] = [
  M('GET', 'staff-credentials', 'MANAGE_POS_STAFF'),
  M('GET', 'staff-credentials/assignable-staff', 'MANAGE_POS_STAFF'),
  M('POST', 'staff-credentials', 'MANAGE_POS_STAFF', { name: 'G', role: 'cashier', pin: '98765432', permissions: [] }),
  M('PUT', `staff-credentials/${id}`, 'MANAGE_POS_STAFF', { name: 'G' }),
  M('DELETE', `staff-credentials/${id}`, 'MANAGE_POS_STAFF'),
  M('POST', `staff-credentials/${id}/reset-pin`, 'MANAGE_POS_STAFF', {}),
  L('GET', 'registers', 'VIEW_POS_CONFIGURATION'),
  L('POST', 'registers', 'MANAGE_POS_CONFIGURATION', { name: 'G' }),
  L('PUT', `registers/${id}`, 'MANAGE_POS_CONFIGURATION', { name: 'G' }),
  L('POST', `registers/${id}/retire`, 'MANAGE_POS_CONFIGURATION'),
  L('POST', `registers/${id}/pair-terminal`, 'MANAGE_POS_CONFIGURATION', { provider: 'card-a', terminal_id: 'G' }),
  L('DELETE', `registers/${id}/terminal`, 'MANAGE_POS_CONFIGURATION'),
  L('PATCH', `registers/${id}/terminal/label`, 'MANAGE_POS_CONFIGURATION', { label: 'G' }),
  L('GET', 'drawers', 'VIEW_POS_CONFIGURATION'),
  L('POST', 'drawers', 'MANAGE_POS_CONFIGURATION', { name: 'G', kind: 'physical' }),
  L('PUT', `drawers/${id}`, 'MANAGE_POS_CONFIGURATION', { name: 'G' }),
  L('POST', `drawers/${id}/retire`, 'MANAGE_POS_CONFIGURATION'),
  L('GET', 'fdm-devices', 'VIEW_POS_CONFIGURATION'),
  L('POST', 'fdm-devices', 'MANAGE_POS_CONFIGURATION', { fdm_id: 'FDM-GATE', mode: 'software' }),
  L('PUT', `fdm-devices/${id}`, 'MANAGE_POS_CONFIGURATION', { status: 'retired' }),
  L('GET', 'business-days', 'VIEW_POS_REPORTS'),
  L('GET', `business-days/${id}`, 'VIEW_POS_REPORTS'),
  L('GET', 'fiscal-events', 'VIEW_POS_REPORTS'),
  M('GET', 'fiscal-locations', 'VIEW_POS_REPORTS'),
  L('GET', 'layouts', 'MANAGE_POS_LAYOUTS'),
  L('POST', 'layouts', 'MANAGE_POS_LAYOUTS', { name: 'G', columns: 1, rows: 1, pages: [{ name: 'P', tiles: [] }] }),
  L('GET', `layouts/${id}`, 'MANAGE_POS_LAYOUTS'),
  L('PUT', `layouts/${id}`, 'MANAGE_POS_LAYOUTS', { name: 'G', columns: 1, rows: 1, pages: [{ name: 'P', tiles: [] }] }),
  L('DELETE', `layouts/${id}`, 'MANAGE_POS_LAYOUTS'),
];

const label = (r: RouteCase) => `${r.method} ${r.path('{locationId}')}`;
const call = (r: RouteCase, token: string | undefined, loc: string, query = '') =>
  api.call(r.method, `/api/back-office${r.path(loc)}${query}`, { ...(token ? { token } : {}), ...(r.body === undefined ? {} : { body: r.body }) });

const FORBIDDEN = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };

describe.each(ROUTES.map((r) => [label(r), r] as const))('%s', (_name, route) => {
  test('401 without a token', async () => {
    expect(await call(route, undefined, a.locations[0]!.id)).toMatchObject({ status: 401, body: { message: 'Unauthenticated' } });
  });

  test('first-party-pos: 403 for a merchant without the marker', async () => {
    expect(await call(route, ownerB, b.locations[0]!.id)).toMatchObject({ status: 403, body: { message: FIRST_PARTY_POS_REQUIRED } });
  });

  test(`403 for a member without ${route.permission}`, async () => {
    const others = ['VIEW_POS_CONFIGURATION', 'MANAGE_POS_CONFIGURATION', 'VIEW_POS_REPORTS', 'MANAGE_POS_STAFF', 'MANAGE_POS_LAYOUTS', 'VIEW_SALES_REPORTS', 'VIEW_KITCHEN_REPORTS'].filter((p) => p !== route.permission);
    const member = await makeMember(api, a, others, { allLocations: true });
    expect(await call(route, member.token, a.locations[0]!.id)).toMatchObject(FORBIDDEN);
  });

  if (route.located) {
    test('location-owner: 404 for another merchant\'s location (or no location)', async () => {
      const notFound = { status: 404, body: { message: 'Unable to locate the location you requested.' } };
      expect(await call(route, ownerA, b.locations[0]!.id)).toMatchObject(notFound);
      expect(await call(route, ownerA, nothing())).toMatchObject(notFound);
      expect(await call(route, ownerA, 'not-a-uuid')).toMatchObject(notFound);
    });

    test(`403 for a member holding ${route.permission} at another location only`, async () => {
      const member = await makeMember(api, a, [route.permission], { locationIds: [a.locations[1]!.id] });
      expect(await call(route, member.token, a.locations[0]!.id)).toMatchObject(FORBIDDEN);
    });
  }
});

describe('admin-vendor-override', () => {
  test('an internal admin acts on another merchant with vendor_id; anyone else is refused', async () => {
    const admin = await makeMember(api, b, ['VIEW_POS_CONFIGURATION'], { allLocations: true });
    const path = `/api/back-office/pos/${a.locations[0]!.id}/drawers?vendor_id=${a.merchant.id}`;
    expect(await api.call('GET', path, { token: admin.token })).toMatchObject(FORBIDDEN);
    await api.deps.db.updateTable('users').set({ is_global_admin: true }).where('id', '=', admin.userId).execute();
    const r = await api.call('GET', path, { token: admin.token });
    expect(r.status).toBe(200);
    expect(r.body.data.map((d: { id: string }) => d.id)).toEqual(a.drawers.map((d) => d.id));
    // the marker checked is the rebound merchant's
    expect(await api.call('GET', `/api/back-office/pos/${b.locations[0]!.id}/drawers?vendor_id=${b.merchant.id}`, { token: admin.token })).toMatchObject({ status: 403, body: { message: FIRST_PARTY_POS_REQUIRED } });
    const days = await api.call('GET', `/api/back-office/pos/${a.locations[0]!.id}/business-days?vendor_id=${a.merchant.id}&page=1`, { token: admin.token });
    expect(days).toMatchObject({ status: 200, body: { page: 1 } });
  });
});
