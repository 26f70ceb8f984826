import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { FIRST_PARTY_POS_REQUIRED } from '@pos/core/pos/first-party';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';

let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerB: string;
const P = '/api/back-office/kds-profiles';
const DEFAULTS = { recall_window_minutes: 30, late_after_minutes: 15, sort: 'priority_first', show_modifiers: true, play_sound: true };
const profileCount = async () => (await bindTenant(api.deps.db, a.merchant.tenant_database).selectFrom('device_profiles').select('id').execute()).length;

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('kp-a');
  b = await api.seed('kp-b');
  owner = await api.ownerToken(a);
  ownerB = await api.ownerToken(b);
});
afterAll(() => api.close());

describe('KDS profiles', () => {
  test('create with defaults, show, list, options, update (merged), delete unbinding devices', async () => {
    const r = await api.call('POST', P, { token: owner, body: { name: ' Line ', settings: { late_after_minutes: 10 } } });
    expect(r.status).toBe(201);
    const id = r.body.data.id;
    expect(r.body).toEqual({ data: { id, name: 'Line', settings: { ...DEFAULTS, late_after_minutes: 10 }, devices_count: 0, created_at: expect.any(String), updated_at: expect.any(String) } });
    expect((await api.call('GET', `${P}/${id}`, { token: owner })).body).toEqual(r.body);
    expect((await api.call('GET', P, { token: owner })).body.data.map((p: { id: string }) => p.id)).toEqual([id]);
    expect((await api.call('GET', `${P}/options`, { token: owner })).body).toEqual({ data: [{ value: id, label: 'Line' }] });

    const upd = await api.call('PUT', `${P}/${id}`, { token: owner, body: { settings: { sort: 'oldest_first' } } });
    expect(upd.body.data.settings).toEqual({ ...DEFAULTS, late_after_minutes: 10, sort: 'oldest_first' });

    const kds = a.devices.find((d) => d.type === 'kds')!;
    expect((await api.call('POST', `/api/back-office/devices/${kds.id}/profile`, { token: owner, body: { device_profile_id: id } })).status).toBe(200);
    expect((await api.call('GET', `${P}/${id}`, { token: owner })).body.data.devices_count).toBe(1);
    expect(await api.call('DELETE', `${P}/${id}`, { token: owner })).toMatchObject({ status: 200, body: { status: 'success', unbound_devices: 1 } });
    expect(await api.call('GET', `${P}/${id}`, { token: owner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the KDS profile you requested.' } });
  });

  test('a profile of another type is not a KDS profile (404) and is not listed', async () => {
    const pos = await api.call('POST', '/api/back-office/device-profiles', { token: owner, body: { name: 'Till', type: 'pos', settings: {} } });
    expect(pos.status).toBe(201);
    expect(await api.call('GET', `${P}/${pos.body.data.id}`, { token: owner })).toMatchObject({ status: 404 });
    expect(await api.call('DELETE', `${P}/${pos.body.data.id}`, { token: owner })).toMatchObject({ status: 404 });
    expect((await api.call('GET', P, { token: owner })).body.data.some((p: { id: string }) => p.id === pos.body.data.id)).toBe(false);
  });

  test('bad input is a 422 on the dot path and writes nothing', async () => {
    const before = await profileCount();
    const r = await api.call('POST', P, { token: owner, body: { name: '', settings: { late_after_minutes: 0, sort: 'newest', colour: 'red' } } });
    expect(r.status).toBe(422);
    expect(r.body.errors.name).toEqual(['The name field is required and may not be greater than 120 characters.']);
    const bad = await api.call('POST', P, { token: owner, body: { name: 'X', settings: { late_after_minutes: 241 } } });
    expect(bad).toMatchObject({ status: 422, body: { errors: { 'settings.late_after_minutes': ['The late after minutes field must be a whole number between 1 and 240.'] } } });
    expect(await profileCount()).toBe(before);
  });

  test('permissions, isolation and the first-party gate', async () => {
    const mine = (await api.call('POST', P, { token: owner, body: { name: 'Mine' } })).body.data;
    const theirs = (await api.call('POST', P, { token: ownerB, body: { name: 'Theirs' } })).body.data;
    expect(await api.call('GET', P)).toMatchObject({ status: 401 });
    const viewer = await limitedUserToken(api, a, ['VIEW_DEVICE_PROFILE'], [a.locations[0]!.id]);
    expect((await api.call('GET', `${P}/${mine.id}`, { token: viewer })).status).toBe(200);
    const denied = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };
    expect(await api.call('POST', P, { token: viewer, body: { name: 'No' } })).toMatchObject(denied);
    expect(await api.call('PUT', `${P}/${mine.id}`, { token: viewer, body: { name: 'No' } })).toMatchObject(denied);
    expect(await api.call('DELETE', `${P}/${mine.id}`, { token: viewer })).toMatchObject(denied);
    const none = await limitedUserToken(api, a, [], [a.locations[0]!.id]);
    expect(await api.call('GET', P, { token: none })).toMatchObject(denied);
    const nf = { status: 404, body: { message: 'Unable to locate the KDS profile you requested.' } };
    expect(await api.call('GET', `${P}/${theirs.id}`, { token: owner })).toMatchObject(nf);
    expect(await api.call('PUT', `${P}/${theirs.id}`, { token: owner, body: { name: 'Mine now' } })).toMatchObject(nf);
    expect(await api.call('DELETE', `${P}/${theirs.id}`, { token: owner })).toMatchObject(nf);
    expect((await api.call('GET', `${P}/${theirs.id}`, { token: ownerB })).body.data.name).toBe('Theirs');
    await api.deps.db.updateTable('merchants').set({ pos_provider: null }).where('id', '=', b.merchant.id).execute();
    try {
      expect(await api.call('GET', P, { token: ownerB })).toMatchObject({ status: 403, body: { message: FIRST_PARTY_POS_REQUIRED } });
    } finally {
      await api.deps.db.updateTable('merchants').set({ pos_provider: 'firstparty' }).where('id', '=', b.merchant.id).execute();
    }
  });
});

describe('concurrent KDS profile updates', () => {
  test('two updates of different settings keys at once both survive (merged under the row lock)', async () => {
    for (let i = 0; i < 8; i++) {
      const c = await api.call('POST', P, { token: owner, body: { name: `Race ${i}` } });
      expect(c.status).toBe(201);
      const id = c.body.data.id;
      const rs = await Promise.all([
        api.call('PUT', `${P}/${id}`, { token: owner, body: { settings: { recall_window_minutes: 45 } } }),
        api.call('PUT', `${P}/${id}`, { token: owner, body: { name: `Race ${i} renamed`, settings: { sort: 'oldest_first' } } }),
      ]);
      expect(rs.map((r) => r.status)).toEqual([200, 200]);
      const g = await api.call('GET', `${P}/${id}`, { token: owner });
      expect(g.body.data.name).toBe(`Race ${i} renamed`);
      expect(g.body.data.settings).toEqual({ ...DEFAULTS, recall_window_minutes: 45, sort: 'oldest_first' });
    }
  });
});
