import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { FIRST_PARTY_POS_REQUIRED } from '@pos/core/pos/first-party';
import { ONLY_KDS_ON_STATION, STATION_ELSEWHERE, stationsForCategory } from '@pos/core/kitchen/stations';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { limitedUserToken } from '../devices/test-helpers.ts';

let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let owner: string;
let ownerB: string;
let categories: { id: string; name: string }[];
const tdbOf = (m: DemoSeedResult) => bindTenant(api.deps.db, m.merchant.tenant_database);
const loc0 = () => a.locations[0]!.id;
const loc1 = () => a.locations[1]!.id;
const kdsOf = (m: DemoSeedResult) => m.devices.find((d) => d.type === 'kds')!;
const stationCount = async () => (await tdbOf(a).selectFrom('kitchen_stations').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow()).n;
const create = (body: Record<string, unknown>, token = owner) => api.call('POST', '/api/back-office/devices/stations', { token, body });

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('st-a');
  b = await api.seed('st-b');
  owner = await api.ownerToken(a);
  ownerB = await api.ownerToken(b);
  categories = await tdbOf(a).selectFrom('categories').select(['id', 'name']).orderBy('position').execute();
});
afterAll(() => api.close());

describe('stations: create, list, show, update, delete', () => {
  test('a station round trip with exact bodies', async () => {
    const r = await create({ location_id: loc0(), name: '  Grill ', category_ids: [categories[1]!.id, categories[1]!.id] });
    expect(r.status).toBe(201);
    const id = r.body.data.id;
    expect(r.body).toEqual({
      data: { id, location_id: loc0(), name: 'Grill', category_ids: [categories[1]!.id], is_fallback: false, device_ids: [], created_at: expect.any(String), updated_at: expect.any(String) },
    });
    const shown = await api.call('GET', `/api/back-office/devices/stations/${id}`, { token: owner });
    expect(shown).toMatchObject({ status: 200, body: { data: r.body.data } });
    const listed = await api.call('GET', `/api/back-office/devices/stations/location/${loc0()}`, { token: owner });
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((s: { id: string }) => s.id)).toContain(id);
    expect((await api.call('GET', `/api/back-office/devices/stations/location/${loc1()}`, { token: owner })).body.data.map((s: { id: string }) => s.id)).not.toContain(id);

    const upd = await api.call('PUT', `/api/back-office/devices/stations/${id}`, { token: owner, body: { name: 'Hot line', category_ids: categories.map((c) => c.id) } });
    expect(upd.status).toBe(200);
    expect(upd.body.data).toMatchObject({ id, name: 'Hot line', category_ids: categories.map((c) => c.id).sort(), is_fallback: false });

    const del = await api.call('DELETE', `/api/back-office/devices/stations/${id}`, { token: owner });
    expect(del).toMatchObject({ status: 200, body: { status: 'success', unbound_devices: 0 } });
    expect(await api.call('GET', `/api/back-office/devices/stations/${id}`, { token: owner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the station you requested.' } });
  });

  test('one fallback per location: marking another takes the flag', async () => {
    const first = await create({ location_id: loc1(), name: 'Pass', is_fallback: true });
    const second = await create({ location_id: loc1(), name: 'Expo', is_fallback: true });
    expect(second.body.data.is_fallback).toBe(true);
    expect((await api.call('GET', `/api/back-office/devices/stations/${first.body.data.id}`, { token: owner })).body.data.is_fallback).toBe(false);
    const back = await api.call('PUT', `/api/back-office/devices/stations/${first.body.data.id}`, { token: owner, body: { is_fallback: true } });
    expect(back.body.data.is_fallback).toBe(true);
    expect((await api.call('GET', `/api/back-office/devices/stations/${second.body.data.id}`, { token: owner })).body.data.is_fallback).toBe(false);
  });

  test('bad input is a 422 on the dot path and writes nothing', async () => {
    const before = await stationCount();
    const r = await create({ location_id: 'nope', name: '', category_ids: ['x'], is_fallback: 'yes' });
    expect(r.status).toBe(422);
    expect(Object.keys(r.body.errors).sort()).toEqual(['category_ids.0', 'is_fallback', 'location_id', 'name']);
    expect(r.body.errors.name).toEqual(['The name field is required and may not be greater than 120 characters.']);
    expect((await create({ location_id: loc0(), name: 'X', extra: 1 })).status).toBe(422);
    expect((await create({ location_id: loc0(), name: 'x'.repeat(121) })).status).toBe(422);
    expect(await stationCount()).toBe(before);
  });
});

describe('binding a KDS device', () => {
  test('bind, show on the station, unbind with null; deleting a station unbinds', async () => {
    const st = (await create({ location_id: loc0(), name: 'Bar', category_ids: [categories[0]!.id] })).body.data;
    const kds = kdsOf(a);
    const bound = await api.call('POST', `/api/back-office/devices/${kds.id}/station`, { token: owner, body: { station_id: st.id } });
    expect(bound.status).toBe(200);
    expect(bound.body.data).toMatchObject({ device_id: kds.id, station: { id: st.id, device_ids: [kds.id] } });
    const unbound = await api.call('POST', `/api/back-office/devices/${kds.id}/station`, { token: owner, body: { station_id: null } });
    expect(unbound.body).toEqual({ data: { device_id: kds.id, station: null } });
    expect((await tdbOf(a).selectFrom('devices').select('station_id').where('id', '=', kds.id).executeTakeFirstOrThrow()).station_id).toBeNull();

    await api.call('POST', `/api/back-office/devices/${kds.id}/station`, { token: owner, body: { station_id: st.id } });
    expect(await api.call('DELETE', `/api/back-office/devices/stations/${st.id}`, { token: owner })).toMatchObject({ status: 200, body: { status: 'success', unbound_devices: 1 } });
    expect((await tdbOf(a).selectFrom('devices').select('station_id').where('id', '=', kds.id).executeTakeFirstOrThrow()).station_id).toBeNull();
  });

  test('only a KDS device, only a station of its location (422 on station_id); station_id is required', async () => {
    const here = (await create({ location_id: loc0(), name: 'Cold' })).body.data;
    const there = (await create({ location_id: loc1(), name: 'Far' })).body.data;
    const pos = a.devices.find((d) => d.type === 'pos')!;
    expect(await api.call('POST', `/api/back-office/devices/${pos.id}/station`, { token: owner, body: { station_id: here.id } })).toMatchObject({
      status: 422,
      body: { errors: { station_id: [ONLY_KDS_ON_STATION] } },
    });
    expect(await api.call('POST', `/api/back-office/devices/${kdsOf(a).id}/station`, { token: owner, body: { station_id: there.id } })).toMatchObject({
      status: 422,
      body: { errors: { station_id: [STATION_ELSEWHERE] } },
    });
    expect((await api.call('POST', `/api/back-office/devices/${kdsOf(a).id}/station`, { token: owner, body: {} })).body.errors).toHaveProperty('station_id');
    expect((await tdbOf(a).selectFrom('devices').select('station_id').where('id', '=', kdsOf(a).id).executeTakeFirstOrThrow()).station_id).toBeNull();
  });
});

describe('permissions, gating and isolation', () => {
  test('401 without a token; 403 without EDIT_DEVICES / VIEW_DEVICES', async () => {
    expect(await api.call('GET', `/api/back-office/devices/stations/location/${loc0()}`)).toMatchObject({ status: 401, body: { message: 'Unauthenticated' } });
    const viewer = await limitedUserToken(api, a, ['VIEW_DEVICES'], [loc0()]);
    const st = (await create({ location_id: loc0(), name: 'Fry' })).body.data;
    expect((await api.call('GET', `/api/back-office/devices/stations/${st.id}`, { token: viewer })).status).toBe(200);
    expect((await api.call('GET', `/api/back-office/devices/stations/location/${loc0()}`, { token: viewer })).status).toBe(200);
    const denied = { status: 403, body: { message: 'Unauthorized: Insufficient permissions' } };
    expect(await create({ location_id: loc0(), name: 'No' }, viewer)).toMatchObject(denied);
    expect(await api.call('PUT', `/api/back-office/devices/stations/${st.id}`, { token: viewer, body: { name: 'No' } })).toMatchObject(denied);
    expect(await api.call('DELETE', `/api/back-office/devices/stations/${st.id}`, { token: viewer })).toMatchObject(denied);
    expect(await api.call('POST', `/api/back-office/devices/${kdsOf(a).id}/station`, { token: viewer, body: { station_id: null } })).toMatchObject(denied);
    // Outside the caller's location grant.
    const editorElsewhere = await limitedUserToken(api, a, ['VIEW_DEVICES', 'EDIT_DEVICES'], [loc1()]);
    expect(await api.call('GET', `/api/back-office/devices/stations/${st.id}`, { token: editorElsewhere })).toMatchObject(denied);
    expect(await create({ location_id: loc0(), name: 'No' }, editorElsewhere)).toMatchObject(denied);
    expect(await api.call('GET', `/api/back-office/devices/stations/location/${loc0()}`, { token: editorElsewhere })).toMatchObject(denied);
    const noView = await limitedUserToken(api, a, ['EDIT_DEVICES'], [loc0()]);
    expect(await api.call('GET', `/api/back-office/devices/stations/${st.id}`, { token: noView })).toMatchObject(denied);
  });

  test('another merchant\'s station, location, device and category are not found', async () => {
    const mine = (await create({ location_id: loc0(), name: 'Mine' })).body.data;
    const theirs = (await create({ location_id: b.locations[0]!.id, name: 'Theirs' }, ownerB)).body.data;
    const nf = (model: string) => ({ status: 404, body: { message: `Unable to locate the ${model} you requested.` } });
    expect(await api.call('GET', `/api/back-office/devices/stations/${theirs.id}`, { token: owner })).toMatchObject(nf('station'));
    expect(await api.call('PUT', `/api/back-office/devices/stations/${theirs.id}`, { token: owner, body: { name: 'Mine now' } })).toMatchObject(nf('station'));
    expect(await api.call('DELETE', `/api/back-office/devices/stations/${theirs.id}`, { token: owner })).toMatchObject(nf('station'));
    expect(await api.call('GET', `/api/back-office/devices/stations/location/${b.locations[0]!.id}`, { token: owner })).toMatchObject(nf('location'));
    expect(await create({ location_id: b.locations[0]!.id, name: 'X' })).toMatchObject(nf('location'));
    expect(await api.call('POST', `/api/back-office/devices/${kdsOf(b).id}/station`, { token: owner, body: { station_id: null } })).toMatchObject(nf('device'));
    expect(await api.call('POST', `/api/back-office/devices/${kdsOf(a).id}/station`, { token: owner, body: { station_id: theirs.id } })).toMatchObject(nf('station'));
    const bCat = await tdbOf(b).selectFrom('categories').select('id').executeTakeFirstOrThrow();
    expect(await api.call('PUT', `/api/back-office/devices/stations/${mine.id}`, { token: owner, body: { category_ids: [bCat.id] } })).toMatchObject(nf('category'));
    expect((await api.call('GET', `/api/back-office/devices/stations/${theirs.id}`, { token: ownerB })).body.data.name).toBe('Theirs');
    expect((await api.call('GET', `/api/back-office/devices/stations/${mine.id}`, { token: owner })).body.data.category_ids).toEqual([]);
  });

  test('a merchant without the first-party marker is refused 403', async () => {
    await api.deps.db.updateTable('merchants').set({ pos_provider: null }).where('id', '=', b.merchant.id).execute();
    try {
      const r = await api.call('GET', `/api/back-office/devices/stations/location/${b.locations[0]!.id}`, { token: ownerB });
      expect(r).toMatchObject({ status: 403, body: { message: FIRST_PARTY_POS_REQUIRED } });
      expect(await create({ location_id: b.locations[0]!.id, name: 'X' }, ownerB)).toMatchObject({ status: 403, body: { message: FIRST_PARTY_POS_REQUIRED } });
    } finally {
      await api.deps.db.updateTable('merchants').set({ pos_provider: 'firstparty' }).where('id', '=', b.merchant.id).execute();
    }
  });
});

describe('stationsForCategory (routing)', () => {
  const s = (id: string, category_ids: string[], is_fallback = false) => ({ id, category_ids, is_fallback });
  test('every serving station, else the fallback, else none', () => {
    const stations = [s('grill', ['food']), s('bar', ['drinks']), s('expo', ['food']), s('pass', [], true)];
    expect(stationsForCategory(stations, 'food')).toEqual(['grill', 'expo']);
    expect(stationsForCategory(stations, 'drinks')).toEqual(['bar']);
    expect(stationsForCategory(stations, 'dessert')).toEqual(['pass']);
    expect(stationsForCategory(stations, null)).toEqual(['pass']);
    expect(stationsForCategory(stations.slice(0, 3), 'dessert')).toEqual([]);
  });
});

describe('the fallback flag under concurrency (one fallback per location, the later one takes it)', () => {
  const fallbacksAt = async (locationId: string) =>
    (await tdbOf(a).selectFrom('kitchen_stations').select('id').where('location_id', '=', locationId).where('is_fallback', '=', true).execute()).map((r) => r.id);

  test('two stations created as the fallback at once: both 201, exactly one fallback left, one of them', async () => {
    for (let i = 0; i < 5; i++) {
      const rs = await Promise.all([0, 1].map((k) => create({ location_id: loc1(), name: `Race FB ${i}-${k}`, is_fallback: true })));
      expect(rs.map((r) => r.status)).toEqual([201, 201]);
      const fallbacks = await fallbacksAt(loc1());
      expect(fallbacks).toHaveLength(1);
      expect(rs.map((r) => r.body.data.id)).toContain(fallbacks[0]);
    }
  });

  test('two existing stations marked the fallback at once: both 200, exactly one fallback left, one of them', async () => {
    for (let i = 0; i < 5; i++) {
      const ids: string[] = [];
      for (const k of [0, 1]) ids.push((await create({ location_id: loc1(), name: `Race U ${i}-${k}` })).body.data.id);
      const rs = await Promise.all(ids.map((id) => api.call('PUT', `/api/back-office/devices/stations/${id}`, { token: owner, body: { is_fallback: true } })));
      expect(rs.map((r) => r.status)).toEqual([200, 200]);
      const fallbacks = await fallbacksAt(loc1());
      expect(fallbacks).toHaveLength(1);
      expect(ids).toContain(fallbacks[0]!);
    }
  });
});
