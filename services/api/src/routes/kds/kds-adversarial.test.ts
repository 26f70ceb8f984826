import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createKitchenTickets } from '@pos/core/kitchen/tickets';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/** Adversarial probes of the kitchen display routes: races, odd bodies, other locations. */
let api: TestApi;
let a: DemoSeedResult;
let kds: string;
let pos: string;
let owner: string;
let tdb: TenantDb;
const call = (method: string, path: string, body?: unknown, token = kds) => api.call(method, path, { token, deviceKey: true, body });

async function ticket(locationId?: string): Promise<string> {
  const cat = await tdb.selectFrom('categories').select('id').orderBy('id').executeTakeFirstOrThrow();
  const [t] = await createKitchenTickets(tdb, {
    source: 'transaction',
    sourceId: crypto.randomUUID(),
    locationId: locationId ?? a.locations[0]!.id,
    orderNo: '9',
    at: new Date(),
    lines: [{ position: 0, item_id: a.items[0]!.id, category_id: cat.id, name: 'Soup', qty: 1, modifiers: [{ name: 'Bread' }] }],
  });
  return t!.id;
}
const events = async (id: string) => (await tdb.selectFrom('kitchen_events').select('action').where('ticket_id', '=', id).orderBy('seq').execute()).map((e) => e.action);

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('kds-adv');
  kds = await api.deviceToken(a, 'kds');
  pos = await api.deviceToken(a, 'pos');
  owner = await api.ownerToken(a);
  tdb = bindTenant(api.deps.db, a.merchant.tenant_database);
});
afterAll(() => api.close());

const nf = { status: 404, body: { message: 'Unable to locate the order you requested.' } };

describe('racing bumps', () => {
  test('eight ready at once: all 200 Ready, one change recorded', async () => {
    const id = await ticket();
    const rs = await Promise.all(Array.from({ length: 8 }, () => call('PUT', `/api/kds/${id}/ready`)));
    expect(rs.map((r) => [r.status, r.body.data.status])).toEqual(Array.from({ length: 8 }, () => [200, 'Ready']));
    expect(await events(id)).toEqual(['created', 'ready']);
  });

  test('hold and ready at once: exactly one wins, the other is the 409 its order gives', async () => {
    const id = await ticket();
    const [hold, ready] = await Promise.all([call('PUT', `/api/kds/${id}/hold`), call('PUT', `/api/kds/${id}/ready`)]);
    const outcome = [hold.status, hold.body.reason ?? null, ready.status, ready.body.reason ?? null];
    // Hold first: ready is refused (held). Ready first: hold is refused (the food is made).
    expect([[200, null, 409, 'order_held'], [409, 'order_ready', 200, null]]).toContainEqual(outcome);
    expect((await events(id)).length).toBe(2);
  });

  test('five recalls of one completed order: one recalls it, four are 409 order_not_complete', async () => {
    const id = await ticket();
    expect((await call('PUT', `/api/kds/${id}/complete`)).status).toBe(200);
    const rs = await Promise.all(Array.from({ length: 5 }, () => call('PUT', `/api/kds/${id}/recall`)));
    expect(rs.filter((r) => r.status === 200).map((r) => r.body.data.status)).toEqual(['Ready']);
    expect(rs.filter((r) => r.status === 409).map((r) => r.body.reason)).toEqual(Array.from({ length: 4 }, () => 'order_not_complete'));
    expect(await events(id)).toEqual(['created', 'complete', 'recall']);
  });
});

describe('odd input', () => {
  test('positions and indexes that are not whole numbers from 0 are 422 on the field; nothing written', async () => {
    const id = await ticket();
    for (const position of [-1, 1e20, 1.5]) {
      expect(await call('PUT', '/api/kds/mark-item', { order_id: id, position, status: 'Ready' })).toMatchObject({ status: 422, body: { errors: { position: ['The position field must be a whole number from 0.'] } } });
    }
    for (const modifier_index of [-1, 99_999_999_999]) {
      expect(await call('PUT', '/api/kds/mark-modifier', { order_id: id, position: 0, modifier_index, status: 'Ready' })).toMatchObject({ status: 422, body: { errors: { modifier_index: ['The modifier index field must be a whole number from 0.'] } } });
    }
    expect(await events(id)).toEqual(['created']);
  });

  test('path ids: not a uuid or unknown is the uniform 404; a NUL is 422; an upper-case spelling is the same order', async () => {
    const id = await ticket();
    expect(await call('PUT', '/api/kds/not-a-uuid/ready')).toMatchObject(nf);
    expect(await call('PUT', '/api/kds/00000000-0000-0000-0000-000000000000/ready')).toMatchObject(nf);
    expect((await call('PUT', `/api/kds/${id}%00/ready`)).status).toBe(422);
    const up = await call('PUT', `/api/kds/${id.toUpperCase()}/ready`);
    expect([up.status, up.body.data.id]).toEqual([200, id]);
  });
});

describe('other callers and places', () => {
  test('a register token, a back-office token, a kds token without the device key: refused, the order unchanged', async () => {
    const id = await ticket();
    expect(await call('PUT', `/api/kds/${id}/ready`, undefined, pos)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Invalid user type' } });
    expect(await api.call('PUT', `/api/kds/${id}/ready`, { token: owner })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Invalid user type' } });
    expect((await api.call('PUT', `/api/kds/${id}/ready`, { token: kds })).status).toBe(401);
    expect(await events(id)).toEqual(['created']);
  });

  test('a ticket of another location of the merchant (its own station) is the uniform 404 for every action and mark', async () => {
    const other = a.locations[1]!.id;
    const st = await api.call('POST', '/api/back-office/devices/stations', { token: owner, body: { location_id: other, name: 'Grill B', category_ids: [], is_fallback: true } });
    expect(st.status).toBe(201);
    const id = await ticket(other);
    for (const action of ['in-progress', 'ready', 'complete', 'hold', 'prioritize', 'recall']) expect(await call('PUT', `/api/kds/${id}/${action}`)).toMatchObject(nf);
    expect(await call('PUT', '/api/kds/mark-item', { order_id: id, position: 0, status: 'Ready' })).toMatchObject(nf);
    expect(await call('POST', '/api/kds/customer-arrived', { order_id: id })).toMatchObject(nf);
    expect(await events(id)).toEqual(['created']);
  });
});

describe('binding a screen to a station being deleted', () => {
  test('the bind waits for the delete and is the 404 a later bind gets, never a 500; the screen keeps its station', async () => {
    const kdsId = a.devices.find((d) => d.type === 'kds')!.id;
    const st = await api.call('POST', '/api/back-office/devices/stations', { token: owner, body: { location_id: a.locations[0]!.id, name: 'Going', category_ids: [] } });
    expect(st.status).toBe(201);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    // What the station delete does, held open while the bind arrives.
    const deleting = tdb.transaction().execute(async (tx) => {
      await tx.selectFrom('kitchen_stations').select('id').where('id', '=', st.body.data.id).forUpdate().execute();
      await tx.updateTable('devices').set({ station_id: null }).where('station_id', '=', st.body.data.id).execute();
      await tx.deleteFrom('kitchen_stations').where('id', '=', st.body.data.id).execute();
      locked();
      await held;
    });
    await isLocked;
    const bind = api.call('POST', `/api/back-office/devices/${kdsId}/station`, { token: owner, body: { station_id: st.body.data.id } });
    await Bun.sleep(200);
    release();
    await deleting;
    // Before: the foreign key failed at the update, a 500.
    expect(await bind).toMatchObject({ status: 404, body: { message: 'Unable to locate the station you requested.' } });
    expect((await tdb.selectFrom('devices').select('station_id').where('id', '=', kdsId).executeTakeFirstOrThrow()).station_id).toBe(a.kds.station_id);
  });
});
