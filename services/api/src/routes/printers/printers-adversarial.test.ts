import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { HealthMonitor } from '@pos/core/health/check-dependencies';
import { createPrinterPollApp } from '../../../../printer-poll/src/app.ts';
import { bindTenant } from '@pos/db';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';
import { call as posCall, signIn } from '../pos-tills/register-test-support.ts';
import { clearThrottles } from '@pos/kernel';
import { whileWriting } from '../../testing/while-writing.ts';

/** Adversarial probes of the printer routes and the poll service they feed. */
let api: TestApi;
let m: DemoSeedResult;
let owner: string;
let pos: string;
let posId: string;
let home: string;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('prt-adv');
  owner = await api.ownerToken(m);
  pos = await api.deviceToken(m, 'pos');
  posId = m.devices.find((d) => d.type === 'pos')!.id;
  home = m.devices.find((d) => d.type === 'pos')!.location_id;
});
afterAll(() => api.close());

const bo = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: owner, body });
const pollApp = () => createPrinterPollApp({ db: api.deps.db, redis: api.deps.redis, log: api.deps.log, health: new HealthMonitor(async () => ({ ok: true }) as never, 0) });
const poll = (token: string) =>
  pollApp().handle(new Request(`http://localhost/print/printer-a/sdp?token=${token}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'ConnectionType=GetRequest&ID=local_printer' }));

/** A printer discovered at a new location (the register moved there and back), configured and paired there. */
async function pairedAtNewLocation(mac: string) {
  const loc = await bo('POST', '/settings/locations', { name: 'Pop-up', timezone: 'Europe/Brussels', country: 'BE' });
  expect(loc.status).toBe(201);
  const popUp = loc.body.data.id as string;
  expect((await bo('PUT', `/devices/${posId}`, { location_id: popUp })).status).toBe(200);
  await clearThrottles(api.deps.redis);
  expect((await api.call('POST', '/api/pos/printers/discovery-report', { token: pos, deviceKey: true, body: { printers: [{ mac }] } })).status).toBe(200);
  expect((await bo('PUT', `/devices/${posId}`, { location_id: home })).status).toBe(200);
  const id = (await bo('GET', `/devices/printers?location_id=${popUp}`)).body.data[0].id as string;
  expect((await bo('POST', `/devices/${id}/printer/configure`, { name: 'Pop-up counter' })).status).toBe(200);
  const pairing = await bo('POST', `/devices/${id}/printer/pairing-session`, {});
  expect(pairing.status).toBe(200);
  return { popUp, id, token: pairing.body.printer_token as string };
}
const tokenRows = (printerId: string) => api.deps.db.selectFrom('printer_tokens').select('printer_id').where('printer_id', '=', printerId).execute();

describe('a printer whose location is deleted', () => {
  test('a printer in service holds its location: 409, nothing deleted, the printer still polls; once retired the location goes and the token is dead', async () => {
    const { popUp, id, token } = await pairedAtNewLocation('00:11:62:DE:AD:01');
    expect((await poll(token)).status).toBe(200);
    // Before: the location and its printer were deleted (cascade) and the token polled on, answered 200 forever.
    const del = await bo('DELETE', `/settings/locations/${popUp}`);
    expect(del.status).toBe(409);
    expect(del.body).toEqual({ message: 'The location is in use (devices, orders or menus) and cannot be deleted.' });
    expect((await bo('GET', `/devices/printers?location_id=${popUp}`)).body.data.map((p: { id: string; state: string }) => [p.id, p.state])).toEqual([[id, 'paired']]);
    expect(await tokenRows(id)).toEqual([{ printer_id: id }]);
    expect((await poll(token)).status).toBe(200);
    expect((await bo('POST', `/devices/${id}/printer/retire`, {})).status).toBe(200);
    expect((await bo('DELETE', `/settings/locations/${popUp}`)).status).toBe(200);
    expect(await tokenRows(id)).toEqual([]);
    const r = await poll(token);
    expect(r.status).toBe(401);
    expect(await r.text()).toBe('Unauthorized');
  });

  test('a printer only discovered (no configuration, no token) does not hold the location', async () => {
    const loc = await bo('POST', '/settings/locations', { name: 'Stand', timezone: 'Europe/Brussels', country: 'BE' });
    const stand = loc.body.data.id as string;
    expect((await bo('PUT', `/devices/${posId}`, { location_id: stand })).status).toBe(200);
    await clearThrottles(api.deps.redis);
    expect((await api.call('POST', '/api/pos/printers/discovery-report', { token: pos, deviceKey: true, body: { printers: [{ mac: '00:11:62:DE:AD:02' }] } })).status).toBe(200);
    expect((await bo('PUT', `/devices/${posId}`, { location_id: home })).status).toBe(200);
    expect((await bo('DELETE', `/settings/locations/${stand}`)).status).toBe(200);
  });
});

describe('the back office reaching for printers it may not touch', () => {
  test('a member granted another location is 403 on the printer and sees none; another merchant\'s owner 404 and sees none; foreign profiles and stations are 422', async () => {
    const other = await api.seed('prt-adv-o');
    const as = (token: string) => (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token, body });
    const limited = as(await limitedUserToken(api, m, ['VIEW_DEVICES', 'EDIT_DEVICES', 'DELETE_DEVICES'], [m.locations[1]!.id]));
    const foreign = as(await api.ownerToken(other));
    await clearThrottles(api.deps.redis);
    expect((await api.call('POST', '/api/pos/printers/discovery-report', { token: pos, deviceKey: true, body: { printers: [{ mac: '00:11:62:DE:AD:04' }] } })).status).toBe(200);
    const id = (await bo('GET', `/devices/printers?location_id=${home}`)).body.data.find((p: { mac: string }) => p.mac === '00:11:62:DE:AD:04').id as string;
    const writes = [
      ['POST', `/devices/${id}/printer/configure`, { name: 'x' }],
      ['POST', `/devices/${id}/printer/test-print`, {}],
      ['POST', `/devices/${id}/printer/rotate-token`, {}],
      ['POST', `/devices/${id}/printer/retire`, {}],
      ['GET', `/devices/${id}/printer/pairing-session`, undefined],
    ] as const;
    for (const [method, path, body] of writes) {
      expect(await limited(method, path, body)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
      expect(await foreign(method, path, body)).toMatchObject({ status: 404, body: { message: 'Unable to locate the printer you requested.' } });
    }
    for (const f of [limited, foreign]) {
      for (const path of [`/devices/printers?location_id=${home}`, '/devices/printers', '/devices/unconfigured-printers']) expect(await f('GET', path)).toMatchObject({ status: 200, body: { data: [] } });
    }
    expect((await bo('GET', `/devices/printers?location_id=${home}`)).body.data.find((p: { id: string }) => p.id === id).state).toBe('unconfigured');

    const theirProfile = (await foreign('POST', '/printer-profiles', { name: 'Theirs' })).body.data.id as string;
    expect(await bo('POST', `/devices/${id}/printer/configure`, { name: 'x', printer_profile_id: theirProfile })).toMatchObject({ status: 422, body: { errors: { printer_profile_id: ['The selected printer profile id is invalid.'] } } });
    expect(await bo('POST', `/devices/${id}/printer/configure`, { name: 'x', role: 'kitchen', station_id: other.kds.station_id })).toMatchObject({ status: 422, body: { errors: { station_id: ['The selected station id is invalid.'] } } });
    const elsewhere = await bo('POST', '/devices/stations', { location_id: m.locations[1]!.id, name: 'L1 grill', category_ids: [] });
    expect(await bo('POST', `/devices/${id}/printer/configure`, { name: 'x', role: 'kitchen', station_id: elsewhere.body.data.id })).toMatchObject({ status: 422, body: { errors: { station_id: ['The selected station id is invalid.'] } } });
    expect((await bo('GET', `/devices/printers?location_id=${home}`)).body.data.find((p: { id: string }) => p.id === id).state).toBe('unconfigured');
  });
});

describe('a retired printer seen again', () => {
  test('has no pairing session until a new pairing: 404 on read and confirm, never the old `paired`', async () => {
    const { id, token } = await pairedAtHome('00:11:62:DE:AD:05');
    expect((await poll(token)).status).toBe(200);
    expect((await bo('GET', `/devices/${id}/printer/pairing-session`)).body.pairing_session.state).toBe('paired');
    expect((await bo('POST', `/devices/${id}/printer/retire`, {})).status).toBe(200);
    await clearThrottles(api.deps.redis);
    expect((await api.call('POST', '/api/pos/printers/discovery-report', { token: pos, deviceKey: true, body: { printers: [{ mac: '00:11:62:DE:AD:05' }] } })).status).toBe(200);
    const none = { status: 404, body: { message: 'Unable to locate the pairing session you requested.' } };
    // Before: 200 with the old session `paired`, for a printer unconfigured again and without a token.
    expect(await bo('GET', `/devices/${id}/printer/pairing-session`)).toMatchObject(none);
    expect(await bo('POST', `/devices/${id}/printer/pairing-session/confirm-write`, {})).toMatchObject(none);
    expect((await poll(token)).status).toBe(401);
    // Configured and paired anew, the new session is the one answered.
    expect((await bo('POST', `/devices/${id}/printer/configure`, { name: 'Counter' })).status).toBe(200);
    const again = await bo('POST', `/devices/${id}/printer/pairing-session`, {});
    expect(again.body.pairing_session.state).toBe('awaiting_write');
    expect((await bo('GET', `/devices/${id}/printer/pairing-session`)).body.pairing_session).toMatchObject({ id: again.body.pairing_session.id, state: 'awaiting_write' });
  });
});
async function pairedAtHome(mac: string) {
  await clearThrottles(api.deps.redis);
  expect((await api.call('POST', '/api/pos/printers/discovery-report', { token: pos, deviceKey: true, body: { printers: [{ mac }] } })).status).toBe(200);
  const id = (await bo('GET', `/devices/printers?location_id=${home}`)).body.data.find((p: { mac: string }) => p.mac === mac).id as string;
  expect((await bo('POST', `/devices/${id}/printer/configure`, { name: 'Counter' })).status).toBe(200);
  const pairing = await bo('POST', `/devices/${id}/printer/pairing-session`, {});
  return { id, token: pairing.body.printer_token as string };
}

describe('a register reaching for a printer of another location or merchant', () => {
  test('every operator and mint route is the uniform 404 (before any 403), nothing written', async () => {
    const other = await api.seed('prt-adv-reg');
    const { id } = await pairedAtNewLocation('00:11:62:DE:AD:06');
    const manager = await signIn(api, m, 'manager', 0);
    const theirPos = await api.deviceToken(other, 'pos');
    await clearThrottles(api.deps.redis);
    expect((await api.call('POST', '/api/pos/printers/discovery-report', { token: theirPos, deviceKey: true, body: { printers: [{ mac: '00:11:62:DE:AD:07' }] } })).status).toBe(200);
    const theirs = (await bindTenantPrinters(other)).find((p) => p.mac === '00:11:62:DE:AD:07')!.id;
    const cashier = await signIn(api, m, 'cashier', 1);
    for (const target of [id, theirs]) {
      for (const r of [manager, cashier]) {
        for (const [method, path, body] of [
          ['POST', `/pos/printers/${target}/configure`, { name: 'Mine now' }],
          ['POST', `/pos/printers/${target}/pairing-session`, {}],
          ['GET', `/pos/printers/${target}/pairing-session`, undefined],
          ['POST', `/pos/printers/${target}/pairing-session/confirm-write`, {}],
          ['POST', `/pos/printers/${target}/test-print`, {}],
        ] as const) {
          expect(await posCall(r, method, path, body)).toMatchObject({ status: 404, body: { message: 'Unable to locate the printer you requested.' } });
        }
      }
      expect((await posCall(manager, 'GET', '/pos/printers')).body.data.map((p: { id: string }) => p.id)).not.toContain(target);
    }
    expect((await bo('GET', `/devices/printers`)).body.data.find((p: { id: string }) => p.id === id)).toMatchObject({ name: 'Pop-up counter', state: 'configured', pending_jobs: 0 });
  });
});
async function bindTenantPrinters(x: DemoSeedResult) {
  const { bindTenant } = await import('@pos/db');
  return bindTenant(api.deps.db, x.merchant.tenant_database).selectFrom('printers').select(['id', 'mac']).execute();
}

describe('discovery report odd bodies', () => {
  test('scope keys at the top, entries that are not objects, separator-less MACs, zero-padded IPs, NULs, an object for the list: 422, nothing written', async () => {
    const before = (await bo('GET', '/devices/unconfigured-printers')).body.data.length;
    for (const [body, field] of [
      [{ printers: [{ mac: '00:11:62:DE:AD:10' }], location_id: home }, 'location_id'],
      [{ printers: [{ mac: '00:11:62:DE:AD:11' }], token: 'x' }, 'token'],
      [{ printers: ['00:11:62:DE:AD:12'] }, 'printers.0'],
      [{ printers: [null] }, 'printers.0'],
      [{ printers: [{ mac: '001162DEAD13' }] }, 'printers.0.mac'],
      [{ printers: [{ mac: '00:11:62:DE:AD:16', ip: '192.168.001.001' }] }, 'printers.0.ip'],
      [{ printers: [{ mac: '00:11:62:DE:AD:19', model: '\u0000bad' }] }, 'printers.0.model'],
      [{ printers: { 0: { mac: '00:11:62:DE:AD:20' } } }, 'printers'],
    ] as const) {
      await clearThrottles(api.deps.redis);
      const r = await api.call('POST', '/api/pos/printers/discovery-report', { token: pos, deviceKey: true, body });
      expect(r.status).toBe(422);
      expect(Object.keys(r.body.errors)).toEqual([field]);
    }
    expect((await bo('GET', '/devices/unconfigured-printers')).body.data.length).toBe(before);
  });
});

describe('configure racing the delete of what it names', () => {
  /** Runs `request` while a transaction that deleted `table`'s row `id` (locked first) stays open. */
  const whileDeleting = (table: 'kitchen_stations' | 'printer_profiles', id: string, request: () => Promise<{ status: number; body: any }>) =>
    whileWriting(
      bindTenant(api.deps.db, m.merchant.tenant_database),
      async (tx) => {
        await tx.selectFrom(table).select('id').where('id', '=', id).forUpdate().execute();
        await tx.deleteFrom(table).where('id', '=', id).execute();
      },
      request,
    );

  test('a station deleted while a printer is configured onto it: 422 on station_id, never a 500, the printer unchanged', async () => {
    const { id } = await pairedAtHome('00:11:62:DE:AD:30');
    const st = await bo('POST', '/devices/stations', { location_id: home, name: 'Going', category_ids: [] });
    expect(st.status).toBe(201);
    // Before: the foreign key check waited for the delete, then failed: 500.
    const r = await whileDeleting('kitchen_stations', st.body.data.id, () => bo('POST', `/devices/${id}/printer/configure`, { name: 'Pass', role: 'kitchen', station_id: st.body.data.id }));
    expect(r).toMatchObject({ status: 422, body: { errors: { station_id: ['The selected station id is invalid.'] } } });
    expect((await bo('GET', '/devices/printers')).body.data.find((p: { id: string }) => p.id === id)).toMatchObject({ name: 'Counter', role: 'receipt', station_id: null });
  });

  test('a printer profile deleted while a printer is configured with it: 422 on printer_profile_id, never a 500', async () => {
    const { id } = await pairedAtHome('00:11:62:DE:AD:31');
    const prof = await bo('POST', '/printer-profiles', { name: 'Going' });
    expect(prof.status).toBe(201);
    const r = await whileDeleting('printer_profiles', prof.body.data.id, () => bo('POST', `/devices/${id}/printer/configure`, { name: 'Counter', printer_profile_id: prof.body.data.id }));
    expect(r).toMatchObject({ status: 422, body: { errors: { printer_profile_id: ['The selected printer profile id is invalid.'] } } });
    expect((await bo('GET', '/devices/printers')).body.data.find((p: { id: string }) => p.id === id)).toMatchObject({ printer_profile_id: null });
  });
});

describe('a printer profile deleted twice at once', () => {
  test('one 200, the other the 404 a later delete gets (before: two 200s)', async () => {
    const prof = (await bo('POST', '/printer-profiles', { name: 'Twice' })).body.data.id as string;
    const answers = await Promise.all([1, 2, 3].map(() => bo('DELETE', `/printer-profiles/${prof}`)));
    expect(answers.map((r) => r.status).sort()).toEqual([200, 404, 404]);
    expect(answers.find((r) => r.status === 404)!.body).toEqual({ message: 'Unable to locate the printer profile you requested.' });
  });
});

describe('a printer profile deleted while a printer bound to it is configured', () => {
  test('the configure (printer, then profile) and the delete do not deadlock: the configure commits, the delete unbinds the printer', async () => {
    const { id } = await pairedAtHome('00:11:62:DE:AD:32');
    const prof = (await bo('POST', '/printer-profiles', { name: 'Held' })).body.data.id as string;
    expect((await bo('POST', `/devices/${id}/printer/configure`, { name: 'Counter', printer_profile_id: prof })).status).toBe(200);
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    // A configure in flight, as `configurePrinter` takes its locks: the printer, then (below) the profile.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const printerLocked = new Promise<void>((r) => (locked = r));
    const configure = tdb.transaction().execute(async (tx) => {
      await tx.selectFrom('printers').select('id').where('id', '=', id).forUpdate().execute();
      locked();
      await held;
      await tx.selectFrom('printer_profiles').select('id').where('id', '=', prof).forKeyShare().execute();
      await tx.updateTable('printers').set({ name: 'Counter 2' }).where('id', '=', id).execute();
    });
    await printerLocked;
    const deleting = bo('DELETE', `/printer-profiles/${prof}`);
    await Bun.sleep(200);
    release();
    // Before: deadlock detected; one of the two failed (the delete answered 500).
    await configure;
    const del = await deleting;
    expect(del.status).toBeLessThan(300);
    expect((await bo('GET', '/devices/printers')).body.data.find((p: { id: string }) => p.id === id)).toMatchObject({ name: 'Counter 2', printer_profile_id: null });
  });
});

describe('a printer profile shared across locations', () => {
  test('a member granted one location cannot rewrite or delete a profile a printer of another location uses (403, unchanged); once only their printers use it, they can', async () => {
    const l1 = m.locations[1]!.id;
    const limited = await limitedUserToken(api, m, ['VIEW_DEVICES', 'EDIT_DEVICES', 'VIEW_DEVICE_PROFILE', 'EDIT_DEVICE_PROFILE', 'DELETE_DEVICE_PROFILE', 'CREATE_DEVICE_PROFILE'], [l1]);
    const asLimited = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: limited, body });
    const { id: homePrinter } = await pairedAtHome('00:11:62:DE:AD:40');
    // A printer at the member's location, discovered by the register while it stood there.
    expect((await bo('PUT', `/devices/${posId}`, { location_id: l1 })).status).toBe(200);
    await clearThrottles(api.deps.redis);
    expect((await api.call('POST', '/api/pos/printers/discovery-report', { token: pos, deviceKey: true, body: { printers: [{ mac: '00:11:62:DE:AD:41' }] } })).status).toBe(200);
    expect((await bo('PUT', `/devices/${posId}`, { location_id: home })).status).toBe(200);
    const theirPrinter = (await asLimited('GET', '/devices/printers')).body.data.find((p: { mac: string }) => p.mac === '00:11:62:DE:AD:41').id as string;

    const shared = (await asLimited('POST', '/printer-profiles', { name: 'Shared', settings: { receipt_footer: ['Thanks'] } })).body.data.id as string;
    expect((await asLimited('POST', `/devices/${theirPrinter}/printer/configure`, { name: 'Bar', printer_profile_id: shared })).status).toBe(200);
    expect((await bo('POST', `/devices/${homePrinter}/printer/configure`, { name: 'Counter', printer_profile_id: shared })).status).toBe(200);
    const denied = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };
    expect(await asLimited('PUT', `/printer-profiles/${shared}`, { settings: { receipt_footer: ['Hacked'] } })).toMatchObject(denied);
    expect(await asLimited('DELETE', `/printer-profiles/${shared}`)).toMatchObject(denied);
    expect((await bo('GET', `/printer-profiles/${shared}`)).body.data).toMatchObject({ printers_count: 2, settings: { receipt_footer: ['Thanks'] } });
    // The home printer leaves the profile: the member's own printer is all it drives now.
    expect((await bo('POST', `/devices/${homePrinter}/printer/configure`, { name: 'Counter', printer_profile_id: null })).status).toBe(200);
    expect((await asLimited('PUT', `/printer-profiles/${shared}`, { settings: { receipt_footer: ['Cheers'] } })).status).toBe(200);
  });
});
