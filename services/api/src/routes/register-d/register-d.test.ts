import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { deliveryMenuItems } from '@pos/core/integrations/delivery-menu';
import { startRegisterDSimulator, type RegisterDSimulator } from '@pos/providers/register-d/register-d-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';

let sim: RegisterDSimulator;
/** A site's link code at the transport (what its owner would copy from the vendor's back office). */
const codeOf = (site: string) => [...sim.sites.values()].find((s) => s.id === site)?.linkCode ?? 'LINK-UNKNOWN';
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let owner: string;
let otherOwner: string;
/** The register-d location: New York, while the merchant's first location is Tokyo. */
let loc: string;
const base = (vendor = 'vendor-a', location = loc) => `/api/back-office/register-d/${vendor}/${location}`;
const connections = (merchantId: string) =>
  api.deps.db.selectFrom('integration_connections').select(['provider', 'external_ref', 'location_id', 'status', 'settings']).where('merchant_id', '=', merchantId).where('provider', 'like', 'register-d%').orderBy('created_at').execute();
const schedules = (merchantId: string) => api.deps.db.selectFrom('integration_auto_syncs').select(['provider', 'sync_time', 'sync_timezone', 'next_run_at']).where('merchant_id', '=', merchantId).execute();
const NOT_CONNECTED = { status: 404, body: { message: 'Unable to locate the register-d integration you requested.' } };

beforeAll(async () => {
  sim = startRegisterDSimulator({ apiToken: 'register-d-test-token', vendors: ['vendor-a', 'vendor-b'] });
  sim.addSite('vendor-a', 'rd-1', 'Centre till');
  sim.addSite('vendor-a', 'rd-2', 'Station till');
  sim.addSite('vendor-a', 'rd-3', 'Harbour till');
  sim.addSite('vendor-b', 'rb-1', 'Other vendor till');
  api = await createTestApi({ env: { REGISTER_D_API_URL: sim.url, REGISTER_D_API_TOKEN: 'register-d-test-token', REGISTER_D_VENDORS: 'vendor-a,vendor-b' } });
  m = await api.seed('rdd-admin');
  other = await api.seed('rdd-other');
  owner = await api.ownerToken(m);
  otherOwner = await api.ownerToken(other);
  loc = m.locations[1]!.id;
  const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  await tdb.updateTable('locations').set({ timezone: 'Asia/Tokyo' }).where('id', '=', m.locations[0]!.id).execute();
  await tdb.updateTable('locations').set({ timezone: 'America/New_York', created_at: new Date(Date.now() + 60_000) }).where('id', '=', loc).execute();
  // Not a first-party-register merchant: the coverage report resolves integrations.
  await api.deps.db.updateTable('merchants').set({ pos_provider: null }).where('id', '=', m.merchant.id).execute();
}, 60_000);
afterAll(async () => {
  await api.close();
  await sim.stop();
});

const disconnected = (zone: string) => ({
  provider: 'vendor-a',
  connected: false,
  status: 'disconnected',
  site_id: null,
  site_name: null,
  connected_at: null,
  menu_synced_at: null,
  sync_time: null,
  sync_timezone: zone,
  enable_auto_sync: false,
  next_sync_at: null,
  last_sync: null,
});

describe('register-d administration', () => {
  test('status before connecting: disconnected, the zone is the location\'s own; the rest is a 404', async () => {
    expect(await api.call('GET', base(), { token: owner })).toMatchObject({ status: 200, body: { data: disconnected('America/New_York') } });
    expect((await api.call('GET', base(), { token: owner })).body).toEqual({ data: disconnected('America/New_York') });
    // The first location's own zone there.
    expect((await api.call('GET', base('vendor-a', m.locations[0]!.id), { token: owner })).body.data.sync_timezone).toBe('Asia/Tokyo');
    expect(await api.call('POST', `${base()}/sync-menu`, { token: owner })).toMatchObject(NOT_CONNECTED);
    expect(await api.call('GET', `${base()}/test`, { token: owner })).toMatchObject(NOT_CONNECTED);
    expect(await api.call('DELETE', base(), { token: owner })).toMatchObject(NOT_CONNECTED);
    expect(await connections(m.merchant.id)).toEqual([]);
  });

  test('an unknown vendor is a 404 on every route', async () => {
    const unknown = { status: 404, body: { message: 'Unable to locate the register-d provider you requested.' } };
    for (const [method, path, body] of [
      ['GET', '', undefined],
      ['POST', '', { site_id: 'rd-1', link_code: codeOf('rd-1') }],
      ['DELETE', '', undefined],
      ['POST', '/sync-menu', undefined],
      ['GET', '/test', undefined],
    ] as const)
      expect(await api.call(method, `${base('vendor-z')}${path}`, { token: owner, body })).toMatchObject(unknown);
    expect(await connections(m.merchant.id)).toEqual([]);
  });

  test('422 with nothing written: site_id missing, unknown at the transport, a bad schedule', async () => {
    expect(await api.call('POST', base(), { token: owner, body: {} })).toMatchObject({ status: 422, body: { errors: { site_id: ['The site id field is required.'] } } });
    expect(await api.call('POST', base(), { token: owner, body: { site_id: 'no-such-site', link_code: codeOf('no-such-site') } })).toMatchObject({ status: 422, body: { errors: { site_id: ['The site could not be found at register-d.'] } } });
    // A site of another vendor is unknown for this one.
    expect(await api.call('POST', base(), { token: owner, body: { site_id: 'rb-1', link_code: codeOf('rb-1') } })).toMatchObject({ status: 422, body: { errors: { site_id: ['The site could not be found at register-d.'] } } });
    expect(await api.call('POST', base(), { token: owner, body: { site_id: 'rd-1', link_code: codeOf('rd-1'), sync_time: '07:15', sync_timezone: 'Mars/Base' } })).toMatchObject({
      status: 422,
      body: { errors: { sync_time: ['The sync time must be a time in HH:MM format with minutes 00 or 30.'], sync_timezone: ['The sync timezone must be a valid timezone.'] } },
    });
    expect((await api.call('POST', base(), { token: owner, body: { site_id: 'rd-1', link_code: codeOf('rd-1'), enable_auto_sync: true } })).status).toBe(422);
    expect(await connections(m.merchant.id)).toEqual([]);
    expect(await schedules(m.merchant.id)).toEqual([]);
    expect(sim.site('vendor-a', 'rd-1')!.linkedRef).toBeNull();
  });

  test('the transport down: 503, nothing written', async () => {
    sim.failWith = 503;
    try {
      expect(await api.call('POST', base(), { token: owner, body: { site_id: 'rd-1', link_code: codeOf('rd-1'), sync_time: '07:30' } })).toMatchObject({ status: 503, body: { message: 'register-d could not be reached.' } });
    } finally {
      sim.failWith = null;
    }
    expect(await connections(m.merchant.id)).toEqual([]);
    expect(await schedules(m.merchant.id)).toEqual([]);
  });

  test('connect with a schedule: the zone defaults to the location\'s own; coverage, menu push, test, settings, site change, disconnect', async () => {
    const at = new Date();
    const c = await api.call('POST', base(), { token: owner, body: { site_id: 'rd-1', link_code: codeOf('rd-1'), sync_time: '7:30' } });
    expect(c.status).toBe(200);
    const connectedAt = c.body.data.connected_at as string;
    expect(new Date(connectedAt).getTime()).toBeGreaterThanOrEqual(at.getTime() - 1000);
    expect(c.body).toEqual({
      status: 'success',
      data: { provider: 'vendor-a', connected: true, status: 'active', site_id: 'rd-1', site_name: 'Centre till', connected_at: connectedAt, menu_synced_at: null, sync_time: '7:30', sync_timezone: 'America/New_York', enable_auto_sync: true, next_sync_at: null, last_sync: null },
    });
    expect(await connections(m.merchant.id)).toEqual([{ provider: 'register-d:vendor-a', external_ref: 'rd-1', location_id: loc, status: 'active', settings: { site_name: 'Centre till' } }]);
    expect(await schedules(m.merchant.id)).toEqual([{ provider: 'register-d:vendor-a', sync_time: '7:30', sync_timezone: 'America/New_York', next_run_at: null }]);
    expect(sim.site('vendor-a', 'rd-1')!.linkedRef).toBe(loc);
    expect((await api.call('GET', base(), { token: owner })).body).toEqual({ data: c.body.data });

    // The coverage report shows the location's register-d provider, connected; the other location has none.
    expect((await api.call('GET', '/api/back-office/reports/pos-coverage', { token: owner })).body).toEqual({
      pos_coverage: { [m.locations[0]!.id]: { pos_provider: null, pos_connected: false }, [loc]: { pos_provider: 'register-d:vendor-a', pos_connected: true } },
    });

    // Menu push: our location's delivery catalog, counts from the transport.
    const expected = await deliveryMenuItems(bindTenant(api.deps.db, m.merchant.tenant_database), loc);
    expect(expected.length).toBeGreaterThan(0);
    expect((await api.call('POST', `${base()}/sync-menu`, { token: owner })).body).toEqual({ status: 'success', items: expected.length, created: expected.length, updated: 0, removed: 0 });
    expect(sim.site('vendor-a', 'rd-1')!.menu).toEqual(expected);
    expect((await api.call('POST', `${base()}/sync-menu`, { token: owner })).body).toEqual({ status: 'success', items: expected.length, created: 0, updated: 0, removed: 0 });
    expect((await api.call('GET', base(), { token: owner })).body.data.menu_synced_at).not.toBeNull();

    expect((await api.call('GET', `${base()}/test`, { token: owner })).body).toEqual({ data: { ok: true, site_id: 'rd-1', message: 'The site answered through register-d.' } });
    sim.failWith = 503;
    try {
      expect(await api.call('GET', `${base()}/test`, { token: owner })).toMatchObject({ status: 200, body: { data: { ok: false, site_id: 'rd-1', message: 'register-d could not be reached.' } } });
      expect(await api.call('POST', `${base()}/sync-menu`, { token: owner })).toMatchObject({ status: 503, body: { message: 'register-d could not be reached.' } });
    } finally {
      sim.failWith = null;
    }
    expect(sim.site('vendor-a', 'rd-1')!.menuPushes).toBe(2);

    // Settings only: a new zone; then clearing the time keeps the stored zone (rule 3).
    const s1 = await api.call('POST', base(), { token: owner, body: { sync_time: '22:00', sync_timezone: 'Europe/Brussels' } });
    expect(s1.body.data).toMatchObject({ site_id: 'rd-1', sync_time: '22:00', sync_timezone: 'Europe/Brussels', enable_auto_sync: true });
    const s2 = await api.call('POST', base(), { token: owner, body: { sync_time: null } });
    expect(s2.body.data).toMatchObject({ site_id: 'rd-1', sync_time: null, sync_timezone: 'Europe/Brussels', enable_auto_sync: false });

    // Another site: the old one is let go at the transport; one row, schedule kept.
    const sw = await api.call('POST', base(), { token: owner, body: { site_id: 'rd-2', link_code: codeOf('rd-2') } });
    expect(sw.body.data).toMatchObject({ connected: true, site_id: 'rd-2', site_name: 'Station till', sync_timezone: 'Europe/Brussels' });
    expect(sim.site('vendor-a', 'rd-1')!.linkedRef).toBeNull();
    expect(sim.site('vendor-a', 'rd-2')!.linkedRef).toBe(loc);
    expect(await connections(m.merchant.id)).toEqual([{ provider: 'register-d:vendor-a', external_ref: 'rd-2', location_id: loc, status: 'active', settings: { site_name: 'Station till' } }]);

    // A second vendor at the same location is refused while the first is live.
    expect(await api.call('POST', base('vendor-b'), { token: owner, body: { site_id: 'rb-1', link_code: codeOf('rb-1') } })).toMatchObject({
      status: 409,
      body: { message: 'This location is already connected to register-d through vendor-a.' },
    });

    const d = await api.call('DELETE', base(), { token: owner });
    expect(d.body).toEqual({ status: 'success', data: { ...sw.body.data, connected: false, status: 'disabled' } });
    expect(sim.site('vendor-a', 'rd-2')!.linkedRef).toBeNull();
    expect(await api.call('POST', `${base()}/sync-menu`, { token: owner })).toMatchObject(NOT_CONNECTED);
    expect((await api.call('GET', '/api/back-office/reports/pos-coverage', { token: owner })).body.pos_coverage[loc]).toEqual({ pos_provider: 'register-d:vendor-a', pos_connected: false });
    // Saving settings needs a connection again (site_id).
    expect(await api.call('POST', base(), { token: owner, body: { sync_time: '08:00' } })).toMatchObject({ status: 422, body: { errors: { site_id: ['The site id field is required.'] } } });
    const events = await api.deps.db.selectFrom('integration_events').select('event_type').where('merchant_id', '=', m.merchant.id).where('kind', '=', 'admin').orderBy('created_at').orderBy('id').execute();
    expect(events.map((e) => e.event_type)).toEqual(['connected', 'schedule_saved', 'menu_synced', 'menu_synced', 'schedule_saved', 'schedule_saved', 'site_changed', 'disconnected']);
  });

  test('a site connected to another merchant is a 409', async () => {
    const otherLoc = other.locations[0]!.id;
    expect((await api.call('POST', base('vendor-a', otherLoc), { token: otherOwner, body: { site_id: 'rd-3', link_code: codeOf('rd-3') } })).status).toBe(200);
    expect(await api.call('POST', base(), { token: owner, body: { site_id: 'rd-3', link_code: codeOf('rd-3') } })).toMatchObject({ status: 409, body: { message: 'This register-d site is already connected elsewhere.' } });
    expect(sim.site('vendor-a', 'rd-3')!.linkedRef).toBe(otherLoc);
  });

  test('permissions: status, test and sync-menu need none; POST and DELETE need MANAGE_INTEGRATION_SETTINGS', async () => {
    expect((await api.call('POST', base(), { token: owner, body: { site_id: 'rd-1', link_code: codeOf('rd-1') } })).status).toBe(200);
    const before = await connections(m.merchant.id);
    const viewer = await makeMember(api, m, ['VIEW_ITEMS'], { allLocations: true });
    expect((await api.call('GET', base(), { token: viewer.token })).status).toBe(200);
    expect((await api.call('GET', `${base()}/test`, { token: viewer.token })).body.data.ok).toBe(true);
    expect((await api.call('POST', `${base()}/sync-menu`, { token: viewer.token })).status).toBe(200);
    const refused = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };
    expect(await api.call('POST', base(), { token: viewer.token, body: { site_id: 'rd-2', link_code: codeOf('rd-2'), sync_time: '09:00' } })).toMatchObject(refused);
    expect(await api.call('DELETE', base(), { token: viewer.token })).toMatchObject(refused);
    expect(await connections(m.merchant.id)).toEqual(before);
    expect(sim.site('vendor-a', 'rd-1')!.linkedRef).toBe(loc);
    // A member holding MIS may.
    const admin = await makeMember(api, m, ['MANAGE_INTEGRATION_SETTINGS'], { allLocations: true });
    expect((await api.call('POST', base(), { token: admin.token, body: { sync_time: '09:00' } })).body.data).toMatchObject({ sync_time: '09:00' });
    expect((await api.call('GET', base())).status).toBe(401);
  });

  test("isolation: another merchant's location is a 404 and its connection is untouched", async () => {
    const otherLoc = other.locations[0]!.id;
    const before = await connections(other.merchant.id);
    expect(before).toHaveLength(1);
    for (const [method, path, body] of [
      ['GET', '', undefined],
      ['POST', '', { sync_time: null }],
      ['POST', '', { site_id: 'rd-2', link_code: codeOf('rd-2') }],
      ['DELETE', '', undefined],
      ['POST', '/sync-menu', undefined],
      ['GET', '/test', undefined],
    ] as const)
      expect(await api.call(method, `${base('vendor-a', otherLoc)}${path}`, { token: owner, body })).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
    expect(await connections(other.merchant.id)).toEqual(before);
    expect(sim.site('vendor-a', 'rd-3')).toMatchObject({ linkedRef: otherLoc, menuPushes: 0 });
  });
});
