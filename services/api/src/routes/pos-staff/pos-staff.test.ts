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
