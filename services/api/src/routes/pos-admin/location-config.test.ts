import { sql } from 'kysely';
import { bindTenant } from '@pos/db';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { DRAWER_HAS_TILL } from '@pos/core/pos-admin/drawer-records';
import { ACTIVE_FDM_EXISTS, FDM_ID_TAKEN, REMOTE_NOT_CONFIGURED } from '@pos/core/pos-admin/fdm-device-records';
import { DEVICE_INVALID, DEVICE_TAKEN, DRAWER_INVALID, REGISTER_RETIRED, TERMINAL_TAKEN } from '@pos/core/pos-admin/register-records';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';
import { ISO, nothing, tdbOf, UUID_V7 } from './pos-admin.test-support.ts';

let api: TestApi;
let m: DemoSeedResult;
let owner: string;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('pos-config');
  owner = await api.ownerToken(m);
});
afterAll(() => api.close());

const loc0 = () => m.locations[0]!.id;
const loc1 = () => m.locations[1]!.id;
const posDevice = (i = 0) => m.devices.filter((d) => d.type === 'pos')[i]!.id;
const call = (method: string, path: string, body?: unknown, token = owner) => api.call(method, `/api/back-office/pos/${path}`, { token, ...(body === undefined ? {} : { body }) });

describe('registers', () => {
  test('create, list, update, pair and unpair a terminal, relabel it, retire', async () => {
    expect(await call('GET', `${loc0()}/registers`)).toMatchObject({ status: 200, body: { data: [] } });

    const created = await call('POST', `${loc0()}/registers`, { name: ' Front counter ', device_id: posDevice(0), drawer_id: m.drawers[0]!.id });
    expect(created.status).toBe(201);
    const reg = created.body.data;
    expect(created.body).toEqual({
      data: { id: expect.stringMatching(UUID_V7), location_id: loc0(), name: 'Front counter', device_id: posDevice(0), drawer_id: m.drawers[0]!.id, terminal: null, retired_at: null, created_at: expect.stringMatching(ISO) },
    });
    expect(await call('GET', `${loc0()}/registers`)).toMatchObject({ status: 200, body: { data: [reg] } });

    const renamed = await call('PUT', `${loc0()}/registers/${reg.id}`, { name: 'Front', drawer_id: null });
    expect(renamed.body).toEqual({ data: { ...reg, name: 'Front', drawer_id: null } });

    const paired = await call('POST', `${loc0()}/registers/${reg.id}/pair-terminal`, { provider: 'card-a', terminal_id: 'TRM-001', label: 'Counter terminal' });
    expect(paired.status).toBe(200);
    expect(paired.body).toEqual({
      data: { ...reg, name: 'Front', drawer_id: null, terminal: { provider: 'card-a', terminal_id: 'TRM-001', label: 'Counter terminal', paired_at: expect.stringMatching(ISO) } },
    });
    const terminal = paired.body.data.terminal;

    const relabelled = await call('PATCH', `${loc0()}/registers/${reg.id}/terminal/label`, { label: 'Till 1' });
    expect(relabelled.body.data.terminal).toEqual({ ...terminal, label: 'Till 1' });
    expect((await call('PATCH', `${loc0()}/registers/${reg.id}/terminal/label`, { label: null })).body.data.terminal).toEqual({ ...terminal, label: null });

    const unpaired = await call('DELETE', `${loc0()}/registers/${reg.id}/terminal`);
    expect(unpaired.body).toEqual({ data: { ...reg, name: 'Front', drawer_id: null, terminal: null } });
    expect((await call('DELETE', `${loc0()}/registers/${reg.id}/terminal`)).status).toBe(200);
    expect(await call('PATCH', `${loc0()}/registers/${reg.id}/terminal/label`, { label: 'x' })).toMatchObject({ status: 404, body: { message: 'Unable to locate the terminal you requested.' } });

    const retired = await call('POST', `${loc0()}/registers/${reg.id}/retire`);
    expect(retired.body).toEqual({ data: { ...reg, name: 'Front', drawer_id: null, terminal: null, retired_at: expect.stringMatching(ISO) } });
    expect((await call('POST', `${loc0()}/registers/${reg.id}/retire`)).body).toEqual(retired.body);
    expect((await call('GET', `${loc0()}/registers`)).body).toEqual({ data: [] });
    expect((await call('GET', `${loc0()}/registers?include_retired=true`)).body).toEqual({ data: [retired.body.data] });
    expect(await call('PUT', `${loc0()}/registers/${reg.id}`, { name: 'Back' })).toMatchObject({ status: 409, body: { message: REGISTER_RETIRED } });
    expect((await call('POST', `${loc0()}/registers/${reg.id}/pair-terminal`, { provider: 'card-a', terminal_id: 'TRM-9' })).status).toBe(409);
    // a retired register frees its device
    expect((await call('POST', `${loc0()}/registers`, { name: 'Successor', device_id: posDevice(0) })).status).toBe(201);
  });

  test('a device moved to another location or deleted leaves its register; it can then be bound where it stands', async () => {
    const device = await api.call('POST', '/api/back-office/devices', { token: owner, body: { name: 'Roaming till', type: 'pos', location_id: loc0() } });
    expect(device.status).toBe(201);
    const id = device.body.data.id as string;
    const there = (await call('POST', `${loc0()}/registers`, { name: 'Roaming', device_id: id })).body.data;
    expect((await api.call('PUT', `/api/back-office/devices/${id}`, { token: owner, body: { location_id: loc1() } })).status).toBe(200);
    // Before: loc0's register still held it, and loc1 answered 422 "already assigned to another register".
    expect((await call('GET', `${loc0()}/registers`)).body.data.find((r: { id: string }) => r.id === there.id)).toMatchObject({ device_id: null });
    const here = await call('POST', `${loc1()}/registers`, { name: 'Roaming here', device_id: id });
    expect(here.status).toBe(201);
    expect((await api.call('DELETE', `/api/back-office/devices/${id}`, { token: owner })).status).toBe(200);
    expect((await call('GET', `${loc1()}/registers`)).body.data.find((r: { id: string }) => r.id === here.body.data.id)).toMatchObject({ device_id: null });
  });

  test('a register re-binding its device while a move of the device is in flight: no deadlock (the device, then the register row, in both)', async () => {
    const device = (await api.call('POST', '/api/back-office/devices', { token: owner, body: { name: 'Racing till', type: 'pos', location_id: loc0() } })).body.data.id as string;
    const reg = (await call('POST', `${loc0()}/registers`, { name: 'Racing', device_id: device })).body.data.id as string;
    const deadlocks = async () => Number((await sql<{ n: string }>`select deadlocks as n from pg_stat_database where datname = current_database()`.execute(api.deps.db)).rows[0]!.n);
    const before = await deadlocks();
    // A move in flight, as `updateDevice` writes it: the device row, then (below) the registers holding it.
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let wrote!: () => void;
    const deviceWritten = new Promise<void>((r) => (wrote = r));
    const move = tdbOf(api, m)
      .transaction()
      .execute(async (tx) => {
        await tx.updateTable('devices').set({ name: 'Racing till (moving)' }).where('id', '=', device).execute();
        wrote();
        await gate;
        await tx.updateTable('pos_registers').set({ device_id: null }).where('device_id', '=', device).where('retired_at', 'is', null).execute();
      });
    await deviceWritten;
    const bind = call('PUT', `${loc0()}/registers/${reg}`, { device_id: device, name: 'Racing' });
    await Bun.sleep(200);
    release();
    // Before: the register write held its row and waited for the device; the move then waited for the
    // row: deadlock detected, one of the two aborted.
    await move;
    expect((await bind).status).toBe(200);
    expect(await deadlocks()).toBe(before);
  });

  test('a device belongs to one live register of its location; only live drawers of the location', async () => {
    const first = await call('POST', `${loc0()}/registers`, { name: 'A', device_id: posDevice(1) });
    expect(first.status).toBe(201);
    expect(await call('POST', `${loc0()}/registers`, { name: 'B', device_id: posDevice(1) })).toMatchObject({ status: 422, body: { errors: { device_id: [DEVICE_TAKEN] } } });
    const kiosk = m.devices.find((d) => d.type === 'kiosk')!.id;
    expect(await call('POST', `${loc0()}/registers`, { name: 'B', device_id: kiosk })).toMatchObject({ status: 422, body: { errors: { device_id: [DEVICE_INVALID] } } });
    expect(await call('POST', `${loc1()}/registers`, { name: 'B', device_id: posDevice(1) })).toMatchObject({ status: 422, body: { errors: { device_id: [DEVICE_INVALID] } } });
    expect(await call('POST', `${loc1()}/registers`, { name: 'B', drawer_id: m.drawers[0]!.id })).toMatchObject({ status: 422, body: { errors: { drawer_id: [DRAWER_INVALID] } } });
    // re-saving its own device is fine
    expect((await call('PUT', `${loc0()}/registers/${first.body.data.id}`, { device_id: posDevice(1) })).status).toBe(200);
    expect((await call('POST', `${loc0()}/registers`, { name: '' })).status).toBe(422);
    expect(await call('PUT', `${loc0()}/registers/${first.body.data.id}`, {})).toMatchObject({ status: 200, body: { data: first.body.data } });
  });

  test('a terminal pairs with one live register; unknown providers are refused', async () => {
    const a = (await call('POST', `${loc0()}/registers`, { name: 'T1' })).body.data;
    const b = (await call('POST', `${loc1()}/registers`, { name: 'T2' })).body.data;
    expect((await call('POST', `${loc0()}/registers/${a.id}/pair-terminal`, { provider: 'card-b', terminal_id: 'SHARED-1' })).status).toBe(200);
    expect(await call('POST', `${loc1()}/registers/${b.id}/pair-terminal`, { provider: 'card-b', terminal_id: 'SHARED-1' })).toMatchObject({ status: 409, body: { message: TERMINAL_TAKEN } });
    expect((await call('POST', `${loc1()}/registers/${b.id}/pair-terminal`, { provider: 'card-a', terminal_id: 'SHARED-1' })).status).toBe(200);
    expect(await call('POST', `${loc1()}/registers/${b.id}/pair-terminal`, { provider: 'card-z', terminal_id: 'X' })).toMatchObject({
      status: 422,
      body: { errors: { provider: ['The provider must be one of: card-a, card-b, platform-a.'] } },
    });
  });

  test('one terminal paired at two locations at once: one pairing wins, the other is 409 (before: both registers held it)', async () => {
    for (let round = 0; round < 5; round++) {
      const a = (await call('POST', `${loc0()}/registers`, { name: `R${round}a` })).body.data;
      const b = (await call('POST', `${loc1()}/registers`, { name: `R${round}b` })).body.data;
      const terminal_id = `RACE-${round}-${crypto.randomUUID().slice(0, 6)}`;
      const answers = await Promise.all([
        call('POST', `${loc0()}/registers/${a.id}/pair-terminal`, { provider: 'card-b', terminal_id }),
        call('POST', `${loc1()}/registers/${b.id}/pair-terminal`, { provider: 'card-b', terminal_id }),
      ]);
      expect(answers.map((r) => r.status).sort()).toEqual([200, 409]);
    }
  });

  test('a register of another location or merchant is 404', async () => {
    const atLoc1 = (await call('POST', `${loc1()}/registers`, { name: 'Elsewhere' })).body.data;
    const notFound = { status: 404, body: { message: 'Unable to locate the register you requested.' } };
    expect(await call('PUT', `${loc0()}/registers/${atLoc1.id}`, { name: 'Stolen' })).toMatchObject(notFound);
    expect(await call('POST', `${loc0()}/registers/${atLoc1.id}/retire`)).toMatchObject(notFound);
    expect(await call('POST', `${loc0()}/registers/${nothing()}/pair-terminal`, { provider: 'card-a', terminal_id: 'X' })).toMatchObject(notFound);
    expect(await call('DELETE', `${loc0()}/registers/not-a-uuid/terminal`)).toMatchObject(notFound);
    const other = await api.seed('pos-config-other');
    const theirs = await call('POST', `${other.locations[0]!.id}/registers`, { name: 'Theirs' }, await api.ownerToken(other));
    expect(theirs.status).toBe(201);
    expect(await call('PUT', `${loc0()}/registers/${theirs.body.data.id}`, { name: 'Mine' })).toMatchObject(notFound);
  });
});

describe('drawers', () => {
  test('list with the frozen fiscal identity; create freezes it; a rename never changes it', async () => {
    const list = await call('GET', `${loc0()}/drawers`);
    expect(list.body).toEqual({
      data: [
        {
          id: m.drawers[0]!.id,
          location_id: loc0(),
          name: 'Main drawer',
          kind: 'physical',
          fiscal_identity: { drawerId: m.drawers[0]!.id, drawerName: 'Main drawer' },
          retired_at: null,
          created_at: expect.stringMatching(ISO),
        },
      ],
    });
    const created = await call('POST', `${loc0()}/drawers`, { name: 'Bar drawer', kind: 'virtual' });
    expect(created.status).toBe(201);
    const d = created.body.data;
    expect(created.body).toEqual({
      data: { id: expect.stringMatching(UUID_V7), location_id: loc0(), name: 'Bar drawer', kind: 'virtual', fiscal_identity: { drawerId: d.id, drawerName: 'Bar drawer' }, retired_at: null, created_at: expect.stringMatching(ISO) },
    });
    const renamed = await call('PUT', `${loc0()}/drawers/${d.id}`, { name: 'Terrace drawer' });
    expect(renamed.body).toEqual({ data: { ...d, name: 'Terrace drawer', fiscal_identity: { drawerId: d.id, drawerName: 'Bar drawer' } } });
    const row = await tdbOf(api, m).selectFrom('drawers').selectAll().where('id', '=', d.id).executeTakeFirstOrThrow();
    expect([row.name, row.fiscal_identity]).toEqual(['Terrace drawer', { drawerId: d.id, drawerName: 'Bar drawer' }]);
    expect((await call('POST', `${loc0()}/drawers`, { name: 'X', kind: 'safe' })).status).toBe(422);
    expect((await call('PUT', `${loc0()}/drawers/${d.id}`, { name: 'X', fiscal_identity: {} })).status).toBe(422);
  });

  test('retiring is refused while a till on the drawer is not closed; then it unbinds live registers', async () => {
    const d = (await call('POST', `${loc0()}/drawers`, { name: 'Busy drawer', kind: 'physical' })).body.data;
    const reg = (await call('POST', `${loc0()}/registers`, { name: 'With busy drawer', drawer_id: d.id })).body.data;
    const tdb = tdbOf(api, m);
    const staff = await tdb.selectFrom('staff_credentials').select('id').where('name', '=', 'Carl Cashier').executeTakeFirstOrThrow();
    const tillId = Bun.randomUUIDv7();
    await tdb
      .insertInto('pos_tills')
      .values({ id: tillId, location_id: loc0(), mode: 'register_drawer', drawer_id: d.id, staff_id: staff.id, device_id: posDevice(0), state: 'open', opening_float: 0, drawer_snapshot: JSON.stringify({ id: d.id, name: d.name }) })
      .execute();
    const refused = { status: 409, body: { message: DRAWER_HAS_TILL, reason: 'till_not_closed' } };
    expect(await call('POST', `${loc0()}/drawers/${d.id}/retire`)).toMatchObject(refused);
    await tdb.updateTable('pos_tills').set({ state: 'ended', ended_at: new Date() }).where('id', '=', tillId).execute();
    expect(await call('POST', `${loc0()}/drawers/${d.id}/retire`)).toMatchObject(refused);
    await tdb.updateTable('pos_tills').set({ state: 'closed', closed_at: new Date() }).where('id', '=', tillId).execute();
    const retired = await call('POST', `${loc0()}/drawers/${d.id}/retire`);
    expect(retired.body).toEqual({ data: { ...d, retired_at: expect.stringMatching(ISO) } });
    expect((await call('GET', `${loc0()}/drawers`)).body.data.some((x: { id: string }) => x.id === d.id)).toBe(false);
    expect((await call('GET', `${loc0()}/drawers?include_retired=true`)).body.data.at(-1)).toEqual(retired.body.data);
    expect((await call('GET', `${loc0()}/registers`)).body.data.find((r: { id: string }) => r.id === reg.id).drawer_id).toBeNull();
    expect((await call('PUT', `${loc0()}/drawers/${d.id}`, { name: 'Renamed' })).status).toBe(409);
  });

  test('a drawer of another location is 404', async () => {
    const atLoc1 = (await call('POST', `${loc1()}/drawers`, { name: 'Station drawer', kind: 'physical' })).body.data;
    expect(await call('PUT', `${loc0()}/drawers/${atLoc1.id}`, { name: 'X' })).toMatchObject({ status: 404, body: { message: 'Unable to locate the drawer you requested.' } });
    expect((await call('POST', `${loc0()}/drawers/${atLoc1.id}/retire`)).status).toBe(404);
  });
});

describe('fiscal data modules', () => {
  test('one active enrolment per location; a retired one stays listed; an fdm id enrols once', async () => {
    const list = await call('GET', `${loc0()}/fdm-devices`);
    const seeded = list.body.data[0];
    expect(list.body).toEqual({
      data: [{ id: expect.stringMatching(UUID_V7), location_id: loc0(), fdm_id: expect.stringMatching(/^FDM-/), regime: 'gks', status: 'active', mode: 'software', created_at: expect.stringMatching(ISO), retired_at: null }],
    });
    expect(await call('POST', `${loc0()}/fdm-devices`, { fdm_id: 'FDM-CONFIG-2', mode: 'software' })).toMatchObject({ status: 409, body: { message: ACTIVE_FDM_EXISTS, reason: 'fdm_active' } });

    const retired = await call('PUT', `${loc0()}/fdm-devices/${seeded.id}`, { status: 'retired' });
    expect(retired.body).toEqual({ data: { ...seeded, status: 'retired', retired_at: expect.stringMatching(ISO) } });
    expect((await call('PUT', `${loc0()}/fdm-devices/${seeded.id}`, { status: 'retired' })).body).toEqual(retired.body);

    const enrolled = await call('POST', `${loc0()}/fdm-devices`, { fdm_id: 'FDM-CONFIG-2', mode: 'software' });
    expect(enrolled.status).toBe(201);
    expect(enrolled.body).toEqual({
      data: { id: expect.stringMatching(UUID_V7), location_id: loc0(), fdm_id: 'FDM-CONFIG-2', regime: 'gks', status: 'active', mode: 'software', created_at: expect.stringMatching(ISO), retired_at: null },
    });
    expect((await call('GET', `${loc0()}/fdm-devices`)).body).toEqual({ data: [enrolled.body.data, retired.body.data] });

    expect(await call('POST', `${loc1()}/fdm-devices`, { fdm_id: seeded.fdm_id, mode: 'software' })).toMatchObject({ status: 409, body: { message: FDM_ID_TAKEN } });
    expect(await call('POST', `${loc1()}/fdm-devices`, { fdm_id: 'FDM-REMOTE-1', mode: 'remote' })).toMatchObject({ status: 422, body: { errors: { mode: [REMOTE_NOT_CONFIGURED] } } });
    expect((await call('POST', `${loc1()}/fdm-devices`, { fdm_id: 'bad id!', mode: 'software' })).status).toBe(422);
    expect((await call('PUT', `${loc0()}/fdm-devices/${enrolled.body.data.id}`, { status: 'active' })).status).toBe(422);
    expect(await call('PUT', `${loc1()}/fdm-devices/${enrolled.body.data.id}`, { status: 'retired' })).toMatchObject({ status: 404, body: { message: 'Unable to locate the fiscal device you requested.' } });
  });
});

describe('fiscal identity of an enrolled location', () => {
  test('a module is enrolled only at a location with its VAT and establishment numbers, which it then keeps', async () => {
    const tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
    const id = Bun.randomUUIDv7();
    await tdb.insertInto('locations').values({ id, name: 'Zz Ghent', timezone: 'Europe/Brussels', country: 'BE', address: null, vat_no: 'BE0123456789', est_no: null, pos_tenders: JSON.stringify({}) }).execute();
    const fdmId = `FDM-ID-${id.slice(-6)}`;
    // Before: 201 and `signing: true`, then every fire, sale and X report at the register a 422 fiscal_identity_missing.
    expect(await call('POST', `${id}/fdm-devices`, { fdm_id: fdmId, mode: 'software' })).toMatchObject({
      status: 422,
      body: { message: 'This location needs a VAT number and an establishment number before it can sign fiscal events.', reason: 'fiscal_identity_missing' },
    });
    expect(await tdb.selectFrom('fdm_devices').select('id').where('location_id', '=', id).execute()).toEqual([]);
    const settings = (method: string, body: unknown) => api.call(method, `/api/back-office/settings/locations/${id}`, { token: owner, body });
    expect((await settings('PUT', { est_no: '2.123.456.789' })).status).toBe(200);
    const enrolled = await call('POST', `${id}/fdm-devices`, { fdm_id: fdmId, mode: 'software' });
    expect(enrolled.status).toBe(201);
    // Cleared under an active module: refused on the field, nothing written.
    for (const field of ['est_no', 'vat_no']) {
      const r = await settings('PUT', { [field]: null });
      expect([r.status, r.body.errors]).toEqual([422, { [field]: ['A location with an active fiscal data module keeps its VAT and establishment numbers: every signed event carries them.'] }]);
    }
    expect((await settings('PUT', { est_no: '2.123.456.790' })).status).toBe(200);
    expect((await call('PUT', `${id}/fdm-devices/${enrolled.body.data.id}`, { status: 'retired' })).status).toBe(200);
    expect((await settings('PUT', { est_no: null })).status).toBe(200);
  });
});

describe('permissions', () => {
  test('VIEW_POS_CONFIGURATION reads, MANAGE_POS_CONFIGURATION writes, only at granted locations', async () => {
    const viewer = await makeMember(api, m, ['VIEW_POS_CONFIGURATION'], { locationIds: [loc0()] });
    expect((await call('GET', `${loc0()}/drawers`, undefined, viewer.token)).status).toBe(200);
    expect((await call('GET', `${loc0()}/fdm-devices`, undefined, viewer.token)).status).toBe(200);
    expect(await call('GET', `${loc1()}/drawers`, undefined, viewer.token)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect(await call('POST', `${loc0()}/drawers`, { name: 'No', kind: 'physical' }, viewer.token)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    const manager = await makeMember(api, m, ['MANAGE_POS_CONFIGURATION'], { locationIds: [loc1()] });
    expect((await call('POST', `${loc1()}/drawers`, { name: 'Yes', kind: 'physical' }, manager.token)).status).toBe(201);
    expect((await call('GET', `${loc1()}/drawers`, undefined, manager.token)).status).toBe(403);
    expect((await call('POST', `${loc0()}/drawers`, { name: 'No', kind: 'physical' }, manager.token)).status).toBe(403);
  });
});
