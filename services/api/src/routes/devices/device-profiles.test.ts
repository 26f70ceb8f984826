import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken, loginToken } from './test-helpers.ts';

let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerB: string;

const BASE = '/api/back-office/device-profiles';
const create = (body: Record<string, unknown>, token = owner) => api.call('POST', BASE, { token, body });

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('prof-a');
  b = await api.seed('prof-b');
  owner = await loginToken(api, a.backoffice.email, a.backoffice.password);
  ownerB = await loginToken(api, b.backoffice.email, b.backoffice.password);
});
afterAll(() => api.close());

describe('device profiles CRUD', () => {
  test('create, show, list, update; activity entries in the same transaction', async () => {
    const c = await create({ name: 'Lobby kiosks', type: 'kiosk', settings: { idle_seconds: 60, theme: 'dark' } });
    expect(c.status).toBe(201);
    const id = c.body.data.id as string;
    expect(c.body.data).toEqual({ id, name: 'Lobby kiosks', type: 'kiosk', settings: { idle_seconds: 60, theme: 'dark' }, devices_count: 0, created_at: expect.any(String), updated_at: expect.any(String) });

    expect(await api.call('GET', `${BASE}/${id}`, { token: owner })).toMatchObject({ status: 200, body: { data: { id, name: 'Lobby kiosks' } } });

    const list = await api.call('GET', `${BASE}?type=kiosk`, { token: owner });
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ total: 1, page: 1, per_page: 25 });
    expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([id]);
    expect((await api.call('GET', `${BASE}?search=lobby`, { token: owner })).body.total).toBe(1);
    expect((await api.call('GET', `${BASE}?search=nothing-like-it`, { token: owner })).body.total).toBe(0);

    const u = await api.call('PUT', `${BASE}/${id}`, { token: owner, body: { name: 'Lobby', settings: { idle_seconds: 90 } } });
    expect(u).toMatchObject({ status: 200, body: { data: { name: 'Lobby', settings: { idle_seconds: 90 } } } });
    const logs = await bindTenant(api.deps.db, a.merchant.tenant_database).selectFrom('activity_logs').select(['action', 'subject']).where('subject_id', '=', id).orderBy('created_at').execute();
    expect(logs).toEqual([
      { action: 'created', subject: 'device_profile' },
      { action: 'updated', subject: 'device_profile' },
    ]);
  });

  test('validation: name required, type limited to pos/kiosk/kds, settings an object of bounded size', async () => {
    expect((await create({ type: 'kiosk' })).status).toBe(422);
    expect(await create({ name: 'P', type: 'printer' })).toMatchObject({ status: 422, body: { errors: { type: ['The selected type is invalid.'] } } });
    expect(await create({ name: 'P', type: 'pos', settings: [1, 2] })).toMatchObject({ status: 422, body: { errors: { settings: ['The settings field must be an object.'] } } });
    expect(await create({ name: 'P', type: 'pos', settings: { blob: 'x'.repeat(20_000) } })).toMatchObject({ status: 422, body: { errors: { settings: [expect.stringContaining('may not be greater')] } } });
    expect((await create({ name: 'P', type: 'pos', colour: 'red' })).status).toBe(422);
  });

  test('another merchant\'s profile and non-UUID ids are a 404', async () => {
    const theirs = (await create({ name: 'Theirs', type: 'pos' }, ownerB)).body.data.id as string;
    const missing = { status: 404, body: { message: 'Unable to locate the device profile you requested.' } };
    expect(await api.call('GET', `${BASE}/${theirs}`, { token: owner })).toMatchObject(missing);
    expect(await api.call('PUT', `${BASE}/${theirs}`, { token: owner, body: { name: 'Mine' } })).toMatchObject(missing);
    expect(await api.call('DELETE', `${BASE}/${theirs}`, { token: owner })).toMatchObject(missing);
    expect(await api.call('GET', `${BASE}/42`, { token: owner })).toMatchObject(missing);
    expect((await api.call('GET', `${BASE}/${theirs}`, { token: ownerB })).body.data.name).toBe('Theirs');
    expect((await api.call('GET', `${BASE}/options`, { token: owner })).body.data.some((o: { value: string }) => o.value === theirs)).toBe(false);
  });

  test('the type cannot change while devices use the profile', async () => {
    const p = (await create({ name: 'Registers', type: 'pos' })).body.data.id as string;
    await api.call('POST', `/api/back-office/devices/${a.devices[0]!.id}/profile`, { token: owner, body: { device_profile_id: p } });
    expect((await api.call('GET', `${BASE}/${p}`, { token: owner })).body.data.devices_count).toBe(1);
    expect(await api.call('PUT', `${BASE}/${p}`, { token: owner, body: { type: 'kds' } })).toMatchObject({ status: 422, body: { errors: { type: ['The type cannot change while devices use this profile.'] } } });
    await api.call('POST', `/api/back-office/devices/${a.devices[0]!.id}/profile`, { token: owner, body: { device_profile_id: null } });
    expect((await api.call('PUT', `${BASE}/${p}`, { token: owner, body: { type: 'kds' } })).body.data.type).toBe('kds');
  });

  test('deleting a profile in use unbinds its devices', async () => {
    const p = (await create({ name: 'Short-lived', type: 'pos' })).body.data.id as string;
    for (const d of a.devices.filter((x) => x.type === 'pos')) {
      expect((await api.call('POST', `/api/back-office/devices/${d.id}/profile`, { token: owner, body: { device_profile_id: p } })).status).toBe(200);
    }
    const del = await api.call('DELETE', `${BASE}/${p}`, { token: owner });
    expect(del).toMatchObject({ status: 200, body: { status: 'success', unbound_devices: 2 } });
    expect((await api.call('GET', `${BASE}/${p}`, { token: owner })).status).toBe(404);
    const dev = await api.call('GET', `/api/back-office/devices/${a.devices[0]!.id}`, { token: owner });
    expect(dev.body.data).toMatchObject({ device_profile_id: null, device_profile: null });
    const log = await bindTenant(api.deps.db, a.merchant.tenant_database).selectFrom('activity_logs').select('properties').where('subject_id', '=', p).where('action', '=', 'deleted').executeTakeFirstOrThrow();
    expect(log.properties).toEqual({ name: 'Short-lived', unbound_devices: 2 });
  });
});

describe('options and permissions', () => {
  test('options are ungated and filterable by type', async () => {
    await create({ name: 'KDS big', type: 'kds' });
    const token = await limitedUserToken(api, a, [], [a.locations[0]!.id]);
    const r = await api.call('GET', `${BASE}/options`, { token });
    expect(r.status).toBe(200);
    expect(r.body.data.length).toBeGreaterThanOrEqual(1);
    expect(r.body.data[0]).toEqual({ value: expect.any(String), label: expect.any(String), type: expect.stringMatching(/^(pos|kiosk|kds)$/) });
    const kds = await api.call('GET', `${BASE}/options?type=kds`, { token });
    expect(kds.body.data.every((o: { type: string }) => o.type === 'kds')).toBe(true);
    expect((await api.call('GET', `${BASE}/options`)).status).toBe(401);
  });

  test('each gated route needs its own slug', async () => {
    const p = (await create({ name: 'Gated', type: 'kiosk' })).body.data.id as string;
    const forbidden = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };
    const viewer = await limitedUserToken(api, a, ['VIEW_DEVICE_PROFILE'], []);
    expect((await api.call('GET', BASE, { token: viewer })).status).toBe(200);
    expect((await api.call('GET', `${BASE}/${p}`, { token: viewer })).status).toBe(200);
    expect(await create({ name: 'No', type: 'pos' }, viewer)).toMatchObject(forbidden);
    expect(await api.call('PUT', `${BASE}/${p}`, { token: viewer, body: { name: 'No' } })).toMatchObject(forbidden);
    expect(await api.call('DELETE', `${BASE}/${p}`, { token: viewer })).toMatchObject(forbidden);

    const editor = await limitedUserToken(api, a, ['CREATE_DEVICE_PROFILE', 'EDIT_DEVICE_PROFILE', 'DELETE_DEVICE_PROFILE'], []);
    expect(await api.call('GET', BASE, { token: editor })).toMatchObject(forbidden);
    expect(await api.call('GET', `${BASE}/${p}`, { token: editor })).toMatchObject(forbidden);
    expect((await create({ name: 'Yes', type: 'pos' }, editor)).status).toBe(201);
    expect((await api.call('PUT', `${BASE}/${p}`, { token: editor, body: { name: 'Renamed' } })).status).toBe(200);
    expect((await api.call('DELETE', `${BASE}/${p}`, { token: editor })).status).toBe(200);
  });
});

describe('profiles within the location grant', () => {
  test('a member granted loc1 only cannot rewrite or delete the profile that drives a loc0 register (403, nothing written)', async () => {
    const pos0 = a.devices.find((d) => d.type === 'pos' && d.location_id === a.locations[0]!.id)!;
    const p = (await create({ name: 'Loc0 registers', type: 'pos', settings: { tip: true } })).body.data.id as string;
    expect((await api.call('POST', `/api/back-office/devices/${pos0.id}/profile`, { token: owner, body: { device_profile_id: p } })).status).toBe(200);
    const loc1 = await limitedUserToken(api, a, ['VIEW_DEVICE_PROFILE', 'EDIT_DEVICE_PROFILE', 'DELETE_DEVICE_PROFILE'], [a.locations[1]!.id]);
    const forbidden = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };
    expect(await api.call('PUT', `${BASE}/${p}`, { token: loc1, body: { settings: { tip: false, hacked: 1 } } })).toMatchObject(forbidden);
    // The grant comes before the body's own 422 (settings too large).
    expect(await api.call('PUT', `${BASE}/${p}`, { token: loc1, body: { settings: { big: 'x'.repeat(17_000) } } })).toMatchObject(forbidden);
    expect(await api.call('DELETE', `${BASE}/${p}`, { token: loc1 })).toMatchObject(forbidden);
    const still = await api.call('GET', `${BASE}/${p}`, { token: owner });
    expect(still.body.data).toMatchObject({ name: 'Loc0 registers', settings: { tip: true }, devices_count: 1 });
    expect((await api.call('GET', `/api/back-office/devices/${pos0.id}`, { token: owner })).body.data.device_profile_id).toBe(p);

    // Once the loc0 register no longer uses it, the profile is within reach; a loc1 device keeps it so.
    const pos1 = (await api.call('POST', '/api/back-office/devices', { token: owner, body: { name: 'Loc1 register', type: 'pos', location_id: a.locations[1]!.id } })).body.data;
    await api.call('POST', `/api/back-office/devices/${pos0.id}/profile`, { token: owner, body: { device_profile_id: null } });
    expect((await api.call('POST', `/api/back-office/devices/${pos1.id}/profile`, { token: owner, body: { device_profile_id: p } })).status).toBe(200);
    const put = await api.call('PUT', `${BASE}/${p}`, { token: loc1, body: { settings: { tip: false } } });
    expect(put).toMatchObject({ status: 200, body: { data: { settings: { tip: false }, devices_count: 1 } } });
    expect(await api.call('DELETE', `${BASE}/${p}`, { token: loc1 })).toMatchObject({ status: 200, body: { status: 'success', unbound_devices: 1 } });
  });
});

describe('a type change racing a binding', () => {
  test('a device never ends bound to a profile of another type (binding through /profile or PUT /devices/{id})', async () => {
    const tdb = bindTenant(api.deps.db, a.merchant.tenant_database);
    const pos = a.devices.find((d) => d.type === 'pos')!;
    for (let i = 0; i < 12; i++) {
      const p = (await create({ name: `Race ${i}`, type: 'pos' })).body.data.id as string;
      await api.call('POST', `/api/back-office/devices/${pos.id}/profile`, { token: owner, body: { device_profile_id: null } });
      const bind =
        i % 2 === 0
          ? api.call('POST', `/api/back-office/devices/${pos.id}/profile`, { token: owner, body: { device_profile_id: p } })
          : api.call('PUT', `/api/back-office/devices/${pos.id}`, { token: owner, body: { device_profile_id: p } });
      const [bound, retyped] = await Promise.all([bind, api.call('PUT', `${BASE}/${p}`, { token: owner, body: { type: 'kiosk' } })]);
      // Exactly one wins: the binding (then the type change is the 422) or the type change (then the binding is).
      expect([bound.status, retyped.status].sort()).toEqual([200, 422]);
      const row = await tdb.selectFrom('devices as d').innerJoin('device_profiles as p', 'p.id', 'd.device_profile_id').select(['d.type as dt', 'p.type as pt']).where('d.id', '=', pos.id).executeTakeFirst();
      if (bound.status === 200) expect(row).toEqual({ dt: 'pos', pt: 'pos' });
      else expect(row).toBeUndefined();
    }
    await api.call('POST', `/api/back-office/devices/${pos.id}/profile`, { token: owner, body: { device_profile_id: null } });
  });
});
