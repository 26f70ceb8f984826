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
const account = `rb-acct-${Bun.randomUUIDv7()}`;

const connections = (merchantId: string) =>
  api.deps.db.selectFrom('integration_connections').select(['id', 'external_ref', 'status']).where('merchant_id', '=', merchantId).where('provider', '=', 'register-b').execute();
const schedules = (merchantId: string) => api.deps.db.selectFrom('integration_auto_syncs').selectAll().where('merchant_id', '=', merchantId).execute();

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('register-b-api');
  other = await api.seed('register-b-other');
  owner = await api.ownerToken(m);
  otherOwner = await api.ownerToken(other);
  await tenantOf(api, m).updateTable('locations').set({ timezone: 'America/New_York' }).execute();
}, 60_000);
afterAll(async () => {
  await api.close();
});

describe('register-b administration', () => {
  test('status without a connection: disconnected, the default zone', async () => {
    expect((await api.call('GET', '/api/back-office/register-b/status', { token: owner })).body).toEqual({
      data: { connected: false, status: 'disconnected', account_id: null, connected_at: null, sync_time: null, sync_timezone: 'America/New_York', enable_auto_sync: false, next_sync_at: null, last_sync: null },
    });
  });

  test('initiate needs account_id; bad schedule refused; nothing written', async () => {
    expect(await api.call('POST', '/api/back-office/register-b', { token: owner, body: { sync_time: '05:00' } })).toMatchObject({
      status: 422,
      body: { errors: { account_id: ['The account id field is required.'] } },
    });
    expect(await api.call('POST', '/api/back-office/register-b', { token: owner, body: { account_id: account, sync_time: '05:15' } })).toMatchObject({
      status: 422,
      body: { errors: { sync_time: ['The sync time must be a time in HH:MM format with minutes 00 or 30.'] } },
    });
    expect((await api.call('POST', '/api/back-office/register-b', { token: owner, body: { account_id: account, enable_auto_sync: true } })).status).toBe(422);
    expect(await connections(m.merchant.id)).toEqual([]);
    expect(await schedules(m.merchant.id)).toEqual([]);
  });

  test('initiate then save settings: the auto-sync schedule is written', async () => {
    const r = await api.call('POST', '/api/back-office/register-b', { token: owner, body: { account_id: account, sync_time: '6:30' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'success',
      data: { connected: true, status: 'active', account_id: account, sync_time: '06:30', sync_timezone: 'America/New_York', enable_auto_sync: true, next_sync_at: null, last_sync: null },
    });
    expect(typeof r.body.data.connected_at).toBe('string');
    const [c] = await connections(m.merchant.id);
    expect(c).toMatchObject({ external_ref: account, status: 'active' });
    await api.deps.db.updateTable('integration_auto_syncs').set({ next_run_at: new Date('2030-01-01T00:00:00Z') }).where('connection_id', '=', c!.id).execute();
    // Save without account_id: the time changes, the next run is reset.
    const r2 = await api.call('POST', '/api/back-office/register-b', { token: owner, body: { sync_time: '22:00', sync_timezone: 'Europe/Brussels' } });
    expect(r2.body.data).toMatchObject({ account_id: account, sync_time: '22:00', sync_timezone: 'Europe/Brussels', next_sync_at: null, last_sync: null });
    expect(await schedules(m.merchant.id)).toMatchObject([{ connection_id: c!.id, provider: 'register-b', sync_time: '22:00', sync_timezone: 'Europe/Brussels', enabled: true, next_run_at: null }]);
    // null clears the time and keeps the zone.
    const r3 = await api.call('POST', '/api/back-office/register-b', { token: owner, body: { sync_time: null } });
    expect(r3.body.data).toMatchObject({ sync_time: null, sync_timezone: 'Europe/Brussels', enable_auto_sync: false });
    expect(await connections(m.merchant.id)).toHaveLength(1);
  });

  test('an account connected to another merchant is a 409; nothing written for that merchant', async () => {
    expect(await api.call('POST', '/api/back-office/register-b', { token: otherOwner, body: { account_id: account } })).toMatchObject({
      status: 409,
      body: { message: 'This register-b account is already connected.' },
    });
    expect(await connections(other.merchant.id)).toEqual([]);
  });

  test('permission MANAGE_INTEGRATION_SETTINGS on the writes; 401 without a token', async () => {
    const viewer = await makeMember(api, m, ['VIEW_ITEMS']);
    expect(await api.call('POST', '/api/back-office/register-b', { token: viewer.token, body: { sync_time: '01:00' } })).toMatchObject({
      status: 403,
      body: { message: 'Unauthorized: Insufficient permissions' },
    });
    expect((await api.call('POST', '/api/back-office/register-b/disable', { token: viewer.token })).status).toBe(403);
    expect((await api.call('GET', '/api/back-office/register-b/status', { token: viewer.token })).status).toBe(200);
    expect((await api.call('GET', '/api/back-office/register-b/status', {})).status).toBe(401);
    expect((await schedules(m.merchant.id))[0]!.sync_time).toBeNull();
  });

  test('disable: 404 without a connection; disabled and its schedule no longer claimed; a save with the account reconnects', async () => {
    expect(await api.call('POST', '/api/back-office/register-b/disable', { token: otherOwner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the integration you requested.' } });
    await api.call('POST', '/api/back-office/register-b', { token: owner, body: { sync_time: '03:00' } });
    expect((await api.call('POST', '/api/back-office/register-b/disable', { token: owner })).body).toEqual({ status: 'success' });
    expect(await connections(m.merchant.id)).toMatchObject([{ status: 'disabled' }]);
    await claimDueAutoSyncs(api.deps.db, new Date('2030-01-01T00:00:00Z'));
    expect((await schedules(m.merchant.id))[0]!.next_run_at).toBeNull();
    expect((await api.call('GET', '/api/back-office/register-b/status', { token: owner })).body.data).toMatchObject({ connected: false, status: 'disabled', account_id: account, sync_time: '03:00' });
    const again = await api.call('POST', '/api/back-office/register-b', { token: owner, body: { account_id: account } });
    expect(again.body.data).toMatchObject({ connected: true, status: 'active', sync_time: '03:00' });
  });
});
