/**
 * Staff work-in / work-out events carry the time they happened, not the time the worker signs them:
 * `posDateTime` is the session's start (work-in) or end (work-out), and `bookingDate` (and its
 * `bookingPeriodId`) that instant's local date at the location. Pinned clock (ManualClock), software
 * signer, location in Europe/Brussels.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { bindTenant, type TenantDb } from '@pos/db';
import { ManualClock } from '@pos/kernel';
import type { FiscalEvent } from '@pos/fiscal';
import { derivedBookingPeriodId } from '@pos/core/fiscal/index';
import { signWorkEvent } from '@pos/core/pos/staff/sign-work-event';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { runQueuedWorkEvents } from '../pos-tills/register-test-support.ts';

let api: TestApi;
let clock: ManualClock;
let m: DemoSeedResult;
let tdb: TenantDb;
let device: string;

beforeAll(async () => {
  clock = new ManualClock(new Date('2026-12-31T12:00:00.000Z'));
  api = await createTestApi({ clock });
  m = await api.seed('work-time');
  tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  device = await api.deviceToken(m, 'pos', 0);
});
afterAll(() => api?.close());

const eventOf = async (subjectId: string) => {
  const row = await tdb.selectFrom('fiscal_journal').select(['payload', 'status']).where('subject_type', '=', 'pos_staff_session').where('subject_id', '=', subjectId).executeTakeFirstOrThrow();
  expect(row.status).toBe('signed');
  return JSON.parse(row.payload) as FiscalEvent;
};
const latestSession = () => tdb.selectFrom('pos_staff_sessions').select(['id', 'staff_id', 'device_id', 'location_id']).orderBy('created_at', 'desc').executeTakeFirstOrThrow();

describe('work events book at the time they happened', () => {
  test('a PIN sign-in at 23:58 on 31 December signed at 00:03 books 23:58 on the 31st; its sign-out after midnight books on the 1st, signed hours later', async () => {
    await runQueuedWorkEvents(api, m.merchant.tenant_database);
    const location = m.devices[0]!.location_id;

    clock.set(new Date('2026-12-31T22:58:00.000Z')); // 23:58 in Brussels
    const staff = await api.staffLogin(m, 'cashier', device);
    const { id } = await latestSession();
    clock.set(new Date('2026-12-31T23:03:00.000Z')); // 00:03 on 1 January: the worker signs
    expect(await runQueuedWorkEvents(api, m.merchant.tenant_database)).toEqual(['signed']);
    expect(await eventOf(`${id}:work_in`)).toMatchObject({
      kind: 'work_in',
      posDateTime: '2026-12-31T22:58:00.000Z',
      bookingDate: '2026-12-31',
      bookingPeriodId: derivedBookingPeriodId(location, '2026-12-31'),
    });

    clock.set(new Date('2026-12-31T23:10:00.000Z')); // 00:10 on 1 January
    expect((await api.call('POST', '/api/pos/staff/pin-logout', { token: device, deviceKey: true, staffToken: staff })).status).toBe(200);
    clock.set(new Date('2027-01-01T05:00:00.000Z')); // a lost job re-queued hours later
    expect(await runQueuedWorkEvents(api, m.merchant.tenant_database)).toEqual(['signed']);
    expect(await eventOf(`${id}:work_out`)).toMatchObject({
      kind: 'work_out',
      posDateTime: '2026-12-31T23:10:00.000Z',
      bookingDate: '2027-01-01',
      bookingPeriodId: derivedBookingPeriodId(location, '2027-01-01'),
    });
  });

  test('a work-in signed by its work-out job carries the session start, not that job’s time', async () => {
    await runQueuedWorkEvents(api, m.merchant.tenant_database);
    clock.set(new Date('2027-01-01T22:50:00.000Z')); // 23:50 on 1 January in Brussels
    const staff = await api.staffLogin(m, 'manager', device);
    clock.set(new Date('2027-01-01T23:20:00.000Z')); // 00:20 on 2 January
    expect((await api.call('POST', '/api/pos/staff/pin-logout', { token: device, deviceKey: true, staffToken: staff })).status).toBe(200);
    const s = await latestSession();

    // The work-out job runs first (the work-in's job lost or late), a day later.
    const at = new Date('2027-01-02T23:30:00.000Z');
    clock.set(at);
    const e = { kind: 'work_out' as const, sessionId: s.id, staffId: s.staff_id, deviceId: s.device_id, locationId: s.location_id };
    expect(await signWorkEvent(tdb, api.deps.fiscal, e, at)).toBe('signed');
    expect(await eventOf(`${s.id}:work_in`)).toMatchObject({ posDateTime: '2027-01-01T22:50:00.000Z', bookingDate: '2027-01-01' });
    expect(await eventOf(`${s.id}:work_out`)).toMatchObject({ posDateTime: '2027-01-01T23:20:00.000Z', bookingDate: '2027-01-02' });
  });
});
