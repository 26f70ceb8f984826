import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';

/** Adversarial probes of the auto-sync schedule writes (spec 1 "Auto-sync schedule payload"). */
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let owner: string;
let otherOwner: string;
let registerC: string;
let platformA: string;
const RC = '/api/back-office/register-c/sync-time';
const PA = '/api/back-office/platform-a/sync-time';

async function connect(merchant: DemoSeedResult, provider: string): Promise<string> {
  const id = Bun.randomUUIDv7();
  await api.deps.db
    .insertInto('integration_connections')
    .values({ id, provider, external_ref: `acct-${id}`, merchant_id: merchant.merchant.id, settings: JSON.stringify({}), created_at: new Date(), updated_at: new Date() })
    .execute();
  return id;
}
const row = (id: string) => api.deps.db.selectFrom('integration_auto_syncs').select(['sync_time', 'sync_timezone', 'enabled', 'next_run_at']).where('connection_id', '=', id).executeTakeFirst();
const status = async () => {
  const r = await api.call('GET', '/api/back-office/register-c/status', { token: owner });
  expect(r.status).toBe(200);
  const { sync_time, sync_timezone, enable_auto_sync, next_sync_at, last_sync } = r.body.data;
  return { sync_time, sync_timezone, enable_auto_sync, next_sync_at, last_sync };
};

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('autosync-adv');
  other = await api.seed('autosync-adv-o');
  owner = await api.ownerToken(m);
  otherOwner = await api.ownerToken(other);
  registerC = await connect(m, 'register-c');
  platformA = await connect(m, 'platform-a');
}, 60_000);
afterAll(async () => {
  await api.deps.db.deleteFrom('integration_connections').where('merchant_id', 'in', [m.merchant.id, other.merchant.id]).execute();
  await api.close();
});

describe('the write answers what the status then reads', () => {
  test('clearing the time answers enable_auto_sync false (auto-sync is off), as the status does', async () => {
    const set = await api.call('PUT', RC, { token: owner, body: { sync_time: '04:30', sync_timezone: 'Europe/Paris' } });
    expect(set.body).toEqual({ status: 'success', data: { sync_time: '04:30', sync_timezone: 'Europe/Paris', enable_auto_sync: true, next_sync_at: null, last_sync: null } });
    expect(await status()).toEqual(set.body.data);
    const cleared = await api.call('PUT', RC, { token: owner, body: { sync_time: null } });
    expect(cleared).toMatchObject({ status: 200, body: { status: 'success', data: { sync_time: null, sync_timezone: 'Europe/Paris', enable_auto_sync: false, next_sync_at: null, last_sync: null } } });
    expect(await status()).toEqual(cleared.body.data);
    // A zone alone, with no time stored: nothing to enable, and the zone is not written (rule 3).
    const zoneOnly = await api.call('PUT', RC, { token: owner, body: { sync_timezone: 'Asia/Tokyo' } });
    expect(zoneOnly.body.data).toEqual({ sync_time: null, sync_timezone: 'Europe/Paris', enable_auto_sync: false, next_sync_at: null, last_sync: null });
    expect(await status()).toEqual(zoneOnly.body.data);
  });

  test('a zone in another case is stored and answered as the zone database spells it', async () => {
    const r = await api.call('PUT', RC, { token: owner, body: { sync_time: '6:00', sync_timezone: 'america/new_york' } });
    expect(r.body.data).toMatchObject({ sync_time: '6:00', sync_timezone: 'America/New_York', enable_auto_sync: true });
    expect(await row(registerC)).toMatchObject({ sync_time: '6:00', sync_timezone: 'America/New_York', enabled: true, next_run_at: null });
    const pa = await api.call('POST', PA, { token: owner, body: { sync_time: '23:30', sync_timezone: 'EUROPE/BRUSSELS', enable_auto_sync: false } });
    expect(pa.body.data).toEqual({ sync_time: '23:30', sync_timezone: 'Europe/Brussels', enable_auto_sync: false, next_sync_at: null, last_sync: null });
    expect(await row(platformA)).toMatchObject({ sync_timezone: 'Europe/Brussels', enabled: false });
  });
});

describe('refusals write nothing', () => {
  test('impossible times and zones: 422 on the field, the stored schedule unchanged', async () => {
    const before = await row(registerC);
    for (const [body, field] of [
      [{ sync_time: '24:00' }, 'sync_time'],
      [{ sync_time: '12:15' }, 'sync_time'],
      [{ sync_time: '-1:00' }, 'sync_time'],
      [{ sync_time: '1:30 ' }, 'sync_time'],
      [{ sync_time: '01:00', sync_timezone: '+01:00' }, 'sync_timezone'],
      [{ sync_time: '01:00', sync_timezone: 'Mars/Olympus_Mons' }, 'sync_timezone'],
      [{ sync_time: '01:00', sync_timezone: '../../etc/passwd' }, 'sync_timezone'],
      [{ sync_time: '01:00', enable_auto_sync: true }, 'enable_auto_sync'],
    ] as const) {
      const r = await api.call('PUT', RC, { token: owner, body });
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.errors)).toEqual([field]);
    }
    expect(await row(registerC)).toEqual(before);
  });

  test('another merchant cannot reach this merchant\'s schedule: its own 404, vendor_id 403, nothing written', async () => {
    const before = await row(registerC);
    expect(await api.call('PUT', RC, { token: otherOwner, body: { sync_time: '01:00' } })).toMatchObject({ status: 404, body: { message: 'Unable to locate the integration you requested.' } });
    expect(await api.call('PUT', `${RC}?vendor_id=${m.merchant.id}`, { token: otherOwner, body: { sync_time: '01:00' } })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect(await api.call('POST', `${PA}?vendor_id=${m.merchant.id}`, { token: otherOwner, body: { sync_time: '01:00' } })).toMatchObject({ status: 403 });
    expect(await row(registerC)).toEqual(before);
  });

  test('a member without MANAGE_INTEGRATION_SETTINGS is 403, nothing written', async () => {
    const before = await row(registerC);
    const member = await makeMember(api, m, ['VIEW_ITEMS']);
    expect(await api.call('PUT', RC, { token: member.token, body: { sync_time: '02:00' } })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect(await row(registerC)).toEqual(before);
  });
});

test('two writes at once: both 200, one schedule row, holding one of the two writes whole', async () => {
  const [a, b] = await Promise.all([
    api.call('PUT', RC, { token: owner, body: { sync_time: '08:00', sync_timezone: 'Europe/Lisbon' } }),
    api.call('PUT', RC, { token: owner, body: { sync_time: '20:30', sync_timezone: 'Asia/Kolkata' } }),
  ]);
  expect([a.status, b.status]).toEqual([200, 200]);
  const rows = await api.deps.db.selectFrom('integration_auto_syncs').select(['sync_time', 'sync_timezone']).where('connection_id', '=', registerC).execute();
  expect(rows.length).toBe(1);
  expect([{ sync_time: '08:00', sync_timezone: 'Europe/Lisbon' }, { sync_time: '20:30', sync_timezone: 'Asia/Kolkata' }]).toContainEqual(rows[0] as { sync_time: string; sync_timezone: string });
});
