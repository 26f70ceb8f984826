import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createKitchenTickets } from '@pos/core/kitchen/tickets';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/**
 * A KDS device only shows a station of its own location (decisions "Kitchen display"): moving it to
 * another location unbinds its station, and a binding left pointing at another location's station
 * counts as none (another location's ticket is a 404 `Unable to locate the order you requested.`).
 */
let api: TestApi;
let a: DemoSeedResult;
let kds: string;
let owner: string;
let tdb: TenantDb;
const NOT_FOUND = { status: 404, body: { message: 'Unable to locate the order you requested.' } };
const call = (method: string, path: string) => api.call(method, path, { token: kds, deviceKey: true });

async function ticketAtLocation0(orderNo: string): Promise<string> {
  const cat = await tdb.selectFrom('categories').select('id').orderBy('id').executeTakeFirstOrThrow();
  const [t] = await createKitchenTickets(tdb, {
    source: 'transaction',
    sourceId: crypto.randomUUID(),
    locationId: a.locations[0]!.id,
    orderNo,
    at: new Date(),
    lines: [{ position: 0, item_id: a.items[0]!.id, category_id: cat.id, name: 'Burger', qty: 1, modifiers: [] }],
  });
  return t!.id;
}

const stationOf = async () => (await tdb.selectFrom('devices').select('station_id').where('id', '=', a.kds.device_id).executeTakeFirstOrThrow()).station_id;
const statusOf = async (id: string) => (await tdb.selectFrom('kitchen_tickets').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
const listed = async () => ((await call('GET', '/api/kds/orders')).body.data as { id: string }[]).map((o) => o.id);

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('kds-moved');
  kds = await api.deviceToken(a, 'kds');
  owner = await api.ownerToken(a);
  tdb = bindTenant(api.deps.db, a.merchant.tenant_database);
});
afterAll(() => api.close());

describe('a KDS device moved to another location', () => {
  test('the move unbinds its station: it no longer lists or acts on the old location\'s tickets (404)', async () => {
    const oldStation = await stationOf();
    expect(oldStation).not.toBeNull();
    const id = await ticketAtLocation0('MV1');
    expect(await listed()).toContain(id);

    const move = await api.call('PUT', `/api/back-office/devices/${a.kds.device_id}`, { token: owner, body: { location_id: a.locations[1]!.id } });
    expect(move.status).toBe(200);
    expect(move.body.data.location_id).toBe(a.locations[1]!.id);
    expect(await stationOf()).toBeNull();

    const settings = await call('GET', '/api/kds/settings');
    expect(settings.status).toBe(200);
    expect(settings.body.data.location_id).toBe(a.locations[1]!.id);
    expect(settings.body.data.station).toBeNull();

    expect(await call('PUT', `/api/kds/${id}/complete`)).toMatchObject(NOT_FOUND);
    expect(await statusOf(id)).toBe('Queued');
    expect(await listed()).toEqual([]);

    // A binding still pointing at the old location's station (written before the move) counts as none.
    await tdb.updateTable('devices').set({ station_id: oldStation }).where('id', '=', a.kds.device_id).execute();
    expect(await listed()).toEqual([]);
    expect((await call('GET', '/api/kds/settings')).body.data.station).toBeNull();
    expect(await call('PUT', `/api/kds/${id}/in-progress`)).toMatchObject(NOT_FOUND);
    expect(await statusOf(id)).toBe('Queued');

    // Moved back: the binding counts again.
    await api.call('PUT', `/api/back-office/devices/${a.kds.device_id}`, { token: owner, body: { location_id: a.locations[0]!.id } });
    await tdb.updateTable('devices').set({ station_id: oldStation }).where('id', '=', a.kds.device_id).execute();
    expect(await listed()).toEqual([id]);
  });

  test('renaming a device without moving it keeps its station', async () => {
    const before = await stationOf();
    const r = await api.call('PUT', `/api/back-office/devices/${a.kds.device_id}`, { token: owner, body: { name: 'Pass KDS', location_id: a.locations[0]!.id } });
    expect(r.status).toBe(200);
    expect(await stationOf()).toBe(before);
  });
});
