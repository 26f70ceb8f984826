import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { bindTenant } from '@pos/db';
import { signWorkEvent } from '@pos/core/pos/staff/sign-work-event';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { queuedWorkEvents, runQueuedWorkEvents } from '../pos-tills/register-test-support.ts';

let api: TestApi;
let m: DemoSeedResult;
let device: string;
let device2: string;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('staff');
  device = await api.deviceToken(m, 'pos', 0);
  device2 = await api.deviceToken(m, 'pos', 1);
});
afterAll(() => api.close());

const pinOf = (role: 'manager' | 'cashier') => m.staff.find((s) => s.role === role)!.pin;

describe('pin-login', () => {
  test('answers a staff token, the member and the permission hints', async () => {
    const r = await api.call('POST', '/api/pos/staff/pin-login', { token: device, deviceKey: true, body: { pin: pinOf('cashier') } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      staff_token: expect.any(String),
      staff: { id: expect.any(String), name: 'Carl Cashier', role: 'cashier' },
      pos_permissions: ['take_orders', 'settle', 'open_till', 'count_till'],
      expires_at: expect.any(String),
    });
    expect(new Date(r.body.expires_at).getTime() - Date.now()).toBeGreaterThan(11.9 * 3600 * 1000);
  });

  test('a wrong PIN is a 422 field error, not a 401', async () => {
    const wrong = ['0000', '1111', '2222'].find((p) => p !== pinOf('manager') && p !== pinOf('cashier'))!;
    const r = await api.call('POST', '/api/pos/staff/pin-login', { token: device, deviceKey: true, body: { pin: wrong } });
    expect(r).toMatchObject({ status: 422, body: { message: 'The PIN is not recognised.', errors: { pin: ['The PIN is not recognised.'] } } });
  });

  test('needs the device key, a pos token and a device token', async () => {
    expect((await api.call('POST', '/api/pos/staff/pin-login', { token: device, body: { pin: pinOf('cashier') } })).status).toBe(401);
    const kiosk = await api.deviceToken(m, 'kiosk');
    expect(await api.call('POST', '/api/pos/staff/pin-login', { token: kiosk, deviceKey: true, body: { pin: pinOf('cashier') } })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Invalid user type' } });
    expect(await api.call('POST', '/api/pos/staff/pin-login', { deviceKey: true, body: { pin: pinOf('cashier') } })).toMatchObject({ status: 401, body: { message: 'Unauthenticated' } });
  });
});

describe('staff token', () => {
  test('pin-logout ends the session: the token then answers 401 Invalid POS staff token', async () => {
    const staff = await api.staffLogin(m, 'cashier', device);
    expect((await api.call('POST', '/api/pos/staff/pin-logout', { token: device, deviceKey: true, staffToken: staff })).body).toEqual({ status: 'success' });
    expect(await api.call('POST', '/api/pos/staff/pin-logout', { token: device, deviceKey: true, staffToken: staff })).toMatchObject({ status: 401, body: { message: 'Invalid POS staff token' } });
  });

  test('a staff token is bound to its device and expires after 12 hours', async () => {
    const staff = await api.staffLogin(m, 'cashier', device);
    expect(await api.call('POST', '/api/pos/staff/pin-logout', { token: device2, deviceKey: true, staffToken: staff })).toMatchObject({ status: 401, body: { message: 'Invalid POS staff token' } });
    await api.deps.db
      .withSchema(m.merchant.tenant_database)
      .updateTable('pos_staff_sessions' as never)
      .set({ expires_at: new Date(Date.now() - 1000) } as never)
      .execute();
    expect(await api.call('POST', '/api/pos/staff/pin-logout', { token: device, deviceKey: true, staffToken: staff })).toMatchObject({ status: 401, body: { message: 'Invalid POS staff token' } });
  });
});

describe('escalate', () => {
  test('a manager PIN approves one permission; a cashier PIN approves nothing it lacks', async () => {
    const staff = await api.staffLogin(m, 'cashier', device);
    const ok = await api.call('POST', '/api/pos/staff/escalate', { token: device, deviceKey: true, staffToken: staff, body: { manager_pin: pinOf('manager'), permission: 'apply_discount' } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ approval_token: expect.any(String), permission: 'apply_discount', expires_in: 120 });
    const own = await api.call('POST', '/api/pos/staff/escalate', { token: device, deviceKey: true, staffToken: staff, body: { manager_pin: pinOf('cashier'), permission: 'apply_discount' } });
    expect(own).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    const unknown = await api.call('POST', '/api/pos/staff/escalate', { token: device, deviceKey: true, staffToken: staff, body: { manager_pin: pinOf('manager'), permission: 'fly' } });
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.body.errors)).toEqual(['permission']);
  });
});

describe('fiscal work events', () => {
  test('pin-login queues a work-in and pin-logout a work-out (outbox, with the session change); the worker signs them once, chained in the journal', async () => {
    const tdb = api.deps.db.withSchema(m.merchant.tenant_database) as any;
    await runQueuedWorkEvents(api, m.merchant.tenant_database); // earlier tests' sessions
    const before = (await tdb.selectFrom('fiscal_journal').select('event_kind').execute()).length;
    const staff = await api.staffLogin(m, 'manager', device);
    await api.call('POST', '/api/pos/staff/pin-logout', { token: device, deviceKey: true, staffToken: staff });

    // Queued, not signed: the PIN pad never waits for (or fails on) the fiscal module.
    const session = await tdb.selectFrom('pos_staff_sessions').select(['id', 'staff_id', 'device_id', 'location_id']).orderBy('created_at', 'desc').executeTakeFirstOrThrow();
    const common = { tenant_database: m.merchant.tenant_database, session_id: session.id, staff_id: session.staff_id, device_id: session.device_id, location_id: session.location_id };
    expect((await queuedWorkEvents(api, m.merchant.tenant_database)).map((q) => q.payload)).toEqual([
      { ...common, kind: 'work_in' },
      { ...common, kind: 'work_out' },
    ]);
    expect((await tdb.selectFrom('fiscal_journal').select('event_kind').execute()).length).toBe(before);

    expect(await runQueuedWorkEvents(api, m.merchant.tenant_database)).toEqual(['signed', 'signed']);
    const rows = await tdb.selectFrom('fiscal_journal').select(['event_kind', 'status', 'seq', 'subject_id']).orderBy('seq').execute();
    expect(rows.slice(before).map((r: { event_kind: string; status: string; subject_id: string }) => [r.event_kind, r.status, r.subject_id])).toEqual([
      ['work_in', 'signed', `${session.id}:work_in`],
      ['work_out', 'signed', `${session.id}:work_out`],
    ]);

    // A job run again (a re-relayed row) signs nothing twice.
    const e = { kind: 'work_in' as const, sessionId: session.id, staffId: session.staff_id, deviceId: session.device_id, locationId: session.location_id };
    expect(await signWorkEvent(bindTenant(api.deps.db, m.merchant.tenant_database), api.deps.fiscal, e, new Date())).toBe('already_signed');
    expect((await tdb.selectFrom('fiscal_journal').select('event_kind').execute()).length).toBe(before + 2);
  });
});

describe('staff sessions end with the device session', () => {
  const INVALID_STAFF = { status: 401, body: { message: 'Invalid POS staff token' } };
  let d: DemoSeedResult;
  let owner: string;
  beforeAll(async () => {
    d = await api.seed('staff-device');
    owner = await api.ownerToken(d);
  });
  const current = (token: string, staffToken: string) => api.call('GET', '/api/pos/tills/current', { token, deviceKey: true, staffToken });
  const liveSessions = (deviceId: string) => bindTenant(api.deps.db, d.merchant.tenant_database).selectFrom('pos_staff_sessions').select('id').where('device_id', '=', deviceId).where('ended_at', 'is', null).execute();
  const workOuts = async (sessionIds: string[]) =>
    (await queuedWorkEvents(api, d.merchant.tenant_database)).filter((q) => q.payload.kind === 'work_out' && sessionIds.includes(q.payload.session_id)).map((q) => q.payload.session_id).sort();
  const sessionIdsOf = async (deviceId: string) => (await liveSessions(deviceId)).map((s) => s.id).sort();

  test('device logout ends its staff sessions (work-outs queued); after re-activation the old staff token is 401', async () => {
    const dev = d.devices.find((x) => x.type === 'pos')!;
    const first = (await api.call('POST', '/api/device-auth/activate', { body: { activation_code: dev.activation_code }, ip: '10.9.8.7' })).body.token as string;
    const staff = await api.staffLogin(d, 'cashier', first);
    await api.staffLogin(d, 'manager', first);
    const sessions = await sessionIdsOf(dev.id);
    expect(sessions).toHaveLength(2);
    expect((await current(first, staff)).status).toBe(204);

    expect(await api.call('POST', '/api/device-auth/logout', { token: first, deviceKey: true })).toMatchObject({ status: 200, body: { status: 'success' } });
    expect(await liveSessions(dev.id)).toEqual([]);
    expect(await workOuts(sessions)).toEqual(sessions);

    const code = await api.call('POST', `/api/back-office/devices/${dev.id}/new-activation-code`, { token: owner });
    expect(code.status).toBe(200);
    const second = (await api.call('POST', '/api/device-auth/activate', { body: { activation_code: code.body.data.activation_code }, ip: '10.9.8.6' })).body.token as string;
    expect(await current(second, staff)).toMatchObject(INVALID_STAFF);
    // A fresh PIN login works on the new token.
    expect((await current(second, await api.staffLogin(d, 'cashier', second))).status).toBe(204);
  });

  test('re-activation alone (without a logout) ends the staff sessions opened with the older token', async () => {
    const dev = d.devices.filter((x) => x.type === 'pos')[1]!;
    const token = await api.deviceToken(d, 'pos', 1);
    const staff = await api.staffLogin(d, 'cashier', token);
    const sessions = await sessionIdsOf(dev.id);
    const activated = await api.call('POST', '/api/device-auth/activate', { body: { activation_code: dev.activation_code }, ip: '10.9.8.5' });
    expect(activated.status).toBe(200);
    expect(await current(activated.body.token, staff)).toMatchObject(INVALID_STAFF);
    expect(await liveSessions(dev.id)).toEqual([]);
    expect(await workOuts(sessions)).toEqual(sessions);
  });

  test('moving the device to another location ends its staff sessions; renaming it does not', async () => {
    const dev = d.devices.filter((x) => x.type === 'pos')[1]!;
    const token = (await api.call('POST', `/api/back-office/devices/${dev.id}/new-activation-code`, { token: owner })).body.data.activation_code as string;
    const deviceToken = (await api.call('POST', '/api/device-auth/activate', { body: { activation_code: token }, ip: '10.9.8.4' })).body.token as string;
    const staff = await api.staffLogin(d, 'cashier', deviceToken);
    expect((await api.call('PUT', `/api/back-office/devices/${dev.id}`, { token: owner, body: { name: 'Renamed register' } })).status).toBe(200);
    expect((await current(deviceToken, staff)).status).toBe(204);
    const sessions = await sessionIdsOf(dev.id);
    const other = d.locations.find((l) => l.id !== dev.location_id)!;
    expect((await api.call('PUT', `/api/back-office/devices/${dev.id}`, { token: owner, body: { location_id: other.id } })).status).toBe(200);
    expect(await current(deviceToken, staff)).toMatchObject(INVALID_STAFF);
    expect(await liveSessions(dev.id)).toEqual([]);
    expect(await workOuts(sessions)).toEqual(sessions);
    // The device itself still works: a PIN login at its new location.
    expect((await current(deviceToken, await api.staffLogin(d, 'cashier', deviceToken))).status).toBe(204);
  });

  test('deleting the device ends its staff sessions, work-outs queued', async () => {
    const created = await api.call('POST', '/api/back-office/devices', { token: owner, body: { name: 'Short-lived register', type: 'pos', location_id: d.locations[0]!.id } });
    expect(created.status).toBe(201);
    const deviceToken = (await api.call('POST', '/api/device-auth/activate', { body: { activation_code: created.body.data.activation_code }, ip: '10.9.8.3' })).body.token as string;
    await api.staffLogin(d, 'cashier', deviceToken);
    const sessions = await sessionIdsOf(created.body.data.id);
    expect(sessions).toHaveLength(1);
    expect((await api.call('DELETE', `/api/back-office/devices/${created.body.data.id}`, { token: owner })).status).toBe(200);
    expect(await liveSessions(created.body.data.id)).toEqual([]);
    expect(await workOuts(sessions)).toEqual(sessions);
  });
});

describe('pin-login: wrong PINs per device and hour (pos-pin-failures)', () => {
  test('30 wrong PINs lock the device out for the hour (429, even with a right PIN); right PINs never count; another device is not locked', async () => {
    const { hitThrottle } = await import('@pos/kernel');
    const { THROTTLES } = await import('../../middleware/throttle.ts');
    const s = await api.seed('staff-pin-lock');
    const [first, second] = [await api.deviceToken(s, 'pos', 0), await api.deviceToken(s, 'pos', 1)];
    const firstId = s.devices.filter((d) => d.type === 'pos')[0]!.id;
    const right = s.staff.find((x) => x.role === 'cashier')!.pin;
    const wrong = ['0000', '1111', '2222'].find((p) => !s.staff.some((x) => x.pin === p))!;
    const login = (token: string, pin: string) => api.call('POST', '/api/pos/staff/pin-login', { token, deviceKey: true, body: { pin } });
    // 29 failures this hour already (sent over time, under the per-minute limit).
    for (let i = 0; i < 29; i++) await hitThrottle(api.deps.redis, THROTTLES.posPinFailures, firstId);
    expect((await login(first, right)).status).toBe(200);
    expect((await login(first, wrong)).status).toBe(422);
    expect(await login(first, right)).toMatchObject({ status: 429, body: { message: 'Too Many Attempts.' } });
    expect((await login(second, right)).status).toBe(200);
  });
});

describe('escalate: an unknown manager PIN is a wrong PIN guess', () => {
  test('it counts against the device\'s 30 wrong PINs an hour, shared with pin-login: then escalate and pin-login are 429', async () => {
    const { hitThrottle } = await import('@pos/kernel');
    const { THROTTLES } = await import('../../middleware/throttle.ts');
    const s = await api.seed('staff-escalate-lock');
    const device = await api.deviceToken(s, 'pos', 0);
    const deviceId = s.devices.filter((d) => d.type === 'pos')[0]!.id;
    const cashier = await api.staffLogin(s, 'cashier', device);
    const manager = s.staff.find((x) => x.role === 'manager')!.pin;
    const wrong = ['0000', '1111', '2222'].find((p) => !s.staff.some((x) => x.pin === p))!;
    const escalateWith = (pin: string) => api.call('POST', '/api/pos/staff/escalate', { token: device, deviceKey: true, staffToken: cashier, body: { manager_pin: pin, permission: 'apply_discount' } });
    for (let i = 0; i < 29; i++) await hitThrottle(api.deps.redis, THROTTLES.posPinFailures, deviceId);
    expect((await escalateWith(manager)).status).toBe(200);
    expect(await escalateWith(wrong)).toMatchObject({ status: 422, body: { errors: { manager_pin: ['The manager PIN is not recognised.'] } } });
    // Before: escalate had only its 10 a minute, so PINs could be stepped through 20 times faster than at sign-in.
    expect(await escalateWith(manager)).toMatchObject({ status: 429, body: { message: 'Too Many Attempts.' } });
    expect((await api.call('POST', '/api/pos/staff/pin-login', { token: device, deviceKey: true, body: { pin: manager } })).status).toBe(429);
  });
});
