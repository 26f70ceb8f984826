import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember, tenantOf } from '../team/team.test-support.ts';
import { claimDueAutoSyncs } from '@pos/core/integrations/auto-sync';

let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let owner: string;
let otherOwner: string;
const conn: Record<string, string> = {};

async function connect(merchant: DemoSeedResult, provider: string): Promise<string> {
  const id = Bun.randomUUIDv7();
  await api.deps.db
    .insertInto('integration_connections')
    .values({ id, provider, external_ref: `acct-${id}`, merchant_id: merchant.merchant.id, settings: JSON.stringify({}), created_at: new Date(), updated_at: new Date() })
    .execute();
  return id;
}
const row = (id: string) => api.deps.db.selectFrom('integration_auto_syncs').selectAll().where('connection_id', '=', id).executeTakeFirst();

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('autosync-api');
  other = await api.seed('autosync-other');
  owner = await api.ownerToken(m);
  otherOwner = await api.ownerToken(other);
  conn.platformA = await connect(m, 'platform-a');
  conn.registerC = await connect(m, 'register-c');
  // The merchant's locations are in New York: the default zone of a first write.
  await tenantOf(api, m).updateTable('locations').set({ timezone: 'America/New_York' }).execute();
}, 60_000);
afterAll(async () => {
  await api.close();
});

describe('POST /back-office/platform-a/sync-time', () => {
  test('stores the wall-clock time with the default zone on a first write, then keeps the stored zone', async () => {
    const r = await api.call('POST', '/api/back-office/platform-a/sync-time', { token: owner, body: { sync_time: '6:30' } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'success', data: { sync_time: '6:30', sync_timezone: 'America/New_York', enable_auto_sync: true, next_sync_at: null, last_sync: null } });
    await api.deps.db.updateTable('integration_auto_syncs').set({ next_run_at: new Date('2030-01-01T00:00:00Z') }).where('connection_id', '=', conn.platformA!).execute();
    const r2 = await api.call('POST', '/api/back-office/platform-a/sync-time', { token: owner, body: { sync_time: '22:00', sync_timezone: 'Europe/Brussels', enable_auto_sync: false } });
    expect(r2.body).toEqual({ status: 'success', data: { sync_time: '22:00', sync_timezone: 'Europe/Brussels', enable_auto_sync: false, next_sync_at: null, last_sync: null } });
    expect(await row(conn.platformA!)).toMatchObject({ sync_time: '22:00', sync_timezone: 'Europe/Brussels', enabled: false, next_run_at: null });
    const r3 = await api.call('POST', '/api/back-office/platform-a/sync-time', { token: owner, body: { sync_time: '23:30' } });
    expect(r3.body.data).toEqual({ sync_time: '23:30', sync_timezone: 'Europe/Brussels', enable_auto_sync: false, next_sync_at: null, last_sync: null });
  });

  test('sync_time is required (the key, and not null); minutes only 00 or 30; nothing written', async () => {
    const before = await row(conn.platformA!);
    const missing = await api.call('POST', '/api/back-office/platform-a/sync-time', { token: owner, body: { sync_timezone: 'Europe/Paris' } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toHaveProperty('sync_time');
    const nul = await api.call('POST', '/api/back-office/platform-a/sync-time', { token: owner, body: { sync_time: null } });
    expect(nul).toMatchObject({ status: 422, body: { errors: { sync_time: ['The sync time field is required.'] } } });
    const quarter = await api.call('POST', '/api/back-office/platform-a/sync-time', { token: owner, body: { sync_time: '07:15', sync_timezone: 'Not/AZone' } });
    expect(quarter).toMatchObject({
      status: 422,
      body: { errors: { sync_time: ['The sync time must be a time in HH:MM format with minutes 00 or 30.'], sync_timezone: ['The sync timezone must be a valid timezone.'] } },
    });
    expect(await row(conn.platformA!)).toEqual(before);
  });

  test('permission MANAGE_INTEGRATION_SETTINGS; 401 without a token', async () => {
    const viewer = await makeMember(api, m, ['VIEW_ITEMS']);
    expect(await api.call('POST', '/api/back-office/platform-a/sync-time', { token: viewer.token, body: { sync_time: '01:00' } })).toMatchObject({
      status: 403,
      body: { message: 'Unauthorized: Insufficient permissions' },
    });
    // The merchant's schedule covers every location: a member holding them all (one location only is 403, location-grant.test.ts).
    const admin = await makeMember(api, m, ['MANAGE_INTEGRATION_SETTINGS'], { allLocations: true });
    expect((await api.call('POST', '/api/back-office/platform-a/sync-time', { token: admin.token, body: { sync_time: '01:00' } })).status).toBe(200);
    expect((await api.call('POST', '/api/back-office/platform-a/sync-time', { body: { sync_time: '01:00' } })).status).toBe(401);
  });

  test('a merchant without the connection: 404, and the other merchant is untouched', async () => {
    const before = await row(conn.platformA!);
    expect(await api.call('POST', '/api/back-office/platform-a/sync-time', { token: otherOwner, body: { sync_time: '05:00' } })).toMatchObject({
      status: 404,
      body: { message: 'Unable to locate the integration you requested.' },
    });
    expect(await row(conn.platformA!)).toEqual(before);
  });
});

describe('PUT /back-office/register-c/sync-time', () => {
  test('sync_time nullable: null clears it and keeps the zone; the zone is written only with a time', async () => {
    expect((await api.call('PUT', '/api/back-office/register-c/sync-time', { token: owner, body: { sync_time: '0:00' } })).body).toEqual({
      status: 'success',
      data: { sync_time: '0:00', sync_timezone: 'America/New_York', enable_auto_sync: true, next_sync_at: null, last_sync: null },
    });
    expect((await api.call('PUT', '/api/back-office/register-c/sync-time', { token: owner, body: { sync_time: null, sync_timezone: 'Asia/Tokyo' } })).body).toEqual({
      status: 'success',
      data: { sync_time: null, sync_timezone: 'America/New_York', enable_auto_sync: false, next_sync_at: null, last_sync: null },
    });
    expect(await row(conn.registerC!)).toMatchObject({ sync_time: null, sync_timezone: 'America/New_York' });
  });

  test('enable_auto_sync is platform-a only; bad times refused', async () => {
    expect((await api.call('PUT', '/api/back-office/register-c/sync-time', { token: owner, body: { sync_time: '05:00', enable_auto_sync: true } })).status).toBe(422);
    expect(await api.call('PUT', '/api/back-office/register-c/sync-time', { token: owner, body: { sync_time: '25:00' } })).toMatchObject({
      status: 422,
      body: { errors: { sync_time: ['The sync time must be a time in HH:MM format with minutes 00 or 30.'] } },
    });
    expect(await row(conn.registerC!)).toMatchObject({ sync_time: null });
  });

  test('vendor_id of a merchant the caller is not entitled to does not rebind', async () => {
    const r = await api.call('PUT', `/api/back-office/register-c/sync-time?vendor_id=${other.merchant.id}`, { token: owner, body: { sync_time: '03:00' } });
    expect([403, 404]).toContain(r.status);
    expect(await api.deps.db.selectFrom('integration_auto_syncs').selectAll().where('merchant_id', '=', other.merchant.id).execute()).toEqual([]);
  });
});

describe('register-c status and disable', () => {
  test('status: connection and schedule, sync_timezone never null', async () => {
    await api.call('PUT', '/api/back-office/register-c/sync-time', { token: owner, body: { sync_time: '04:30', sync_timezone: 'Europe/Paris' } });
    expect((await api.call('GET', '/api/back-office/register-c/status', { token: owner })).body).toEqual({
      data: { connected: true, status: 'active', connected_at: null, sync_time: '04:30', sync_timezone: 'Europe/Paris', enable_auto_sync: true, next_sync_at: null, last_sync: null },
    });
    // A merchant without register-c: disconnected, the default zone (its locations are in Brussels).
    expect((await api.call('GET', '/api/back-office/register-c/status', { token: otherOwner })).body).toEqual({
      data: { connected: false, status: 'disconnected', connected_at: null, sync_time: null, sync_timezone: 'Europe/Brussels', enable_auto_sync: false, next_sync_at: null, last_sync: null },
    });
  });

  test('status: the last scheduled provider sync as the worker recorded it', async () => {
    const finished = new Date('2026-06-01T03:00:05.000Z');
    await api.deps.db
      .updateTable('integration_auto_syncs')
      .set({ last_status: 'not_configured', last_error: 'register-c sync is not wired yet.', last_counts: null, last_finished_at: finished })
      .where('connection_id', '=', conn.registerC!)
      .execute();
    expect((await api.call('GET', '/api/back-office/register-c/status', { token: owner })).body.data.last_sync).toEqual({
      status: 'not_configured',
      error: 'register-c sync is not wired yet.',
      counts: null,
      finished_at: '2026-06-01T03:00:05.000Z',
    });
    await api.deps.db.updateTable('integration_auto_syncs').set({ last_status: 'ok', last_error: null, last_counts: JSON.stringify({ items: 12 }) }).where('connection_id', '=', conn.registerC!).execute();
    expect((await api.call('GET', '/api/back-office/register-c/status', { token: owner })).body.data.last_sync).toEqual({ status: 'ok', error: null, counts: { items: 12 }, finished_at: '2026-06-01T03:00:05.000Z' });
  });

  test('disable: MIS; the connection is disabled and its schedule no longer claimed', async () => {
    const viewer = await makeMember(api, m, ['VIEW_ITEMS']);
    expect((await api.call('POST', '/api/back-office/register-c/disable', { token: viewer.token })).status).toBe(403);
    expect((await api.call('POST', '/api/back-office/register-c/disable', { token: otherOwner })).status).toBe(404);
    expect((await api.call('POST', '/api/back-office/register-c/disable', { token: owner })).body).toEqual({ status: 'success' });
    const c = await api.deps.db.selectFrom('integration_connections').select(['status', 'access_token_encrypted']).where('id', '=', conn.registerC!).executeTakeFirstOrThrow();
    expect(c).toEqual({ status: 'disabled', access_token_encrypted: null });
    await claimDueAutoSyncs(api.deps.db, new Date('2030-01-01T00:00:00Z'));
    expect((await row(conn.registerC!))!.next_run_at).toBeNull();
    expect((await api.call('GET', '/api/back-office/register-c/status', { token: owner })).body.data).toMatchObject({ connected: false, status: 'disabled', sync_time: '04:30' });
  });
});
