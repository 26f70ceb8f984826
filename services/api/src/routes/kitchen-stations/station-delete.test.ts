import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { bindTenant, type TenantDb } from '@pos/db';
import { createKitchenTickets } from '@pos/core/kitchen/tickets';
import { STATION_HAS_OPEN_ORDERS, STATION_HAS_PRINTER } from '@pos/core/kitchen/stations';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { signIn, type Register } from '../pos-tills/register-test-support.ts';

// Deleting a station (docs/decisions.md "Kitchen display"): never leaves a kitchen printer without a
// station, never drops open orders from the screens, never erases the kitchen report history.
let api: TestApi;
let m: DemoSeedResult;
let tdb: TenantDb;
let manager: Register;
let owner: string;
let macSeq = 0x10;
const mac = () => `00:11:62:09:${(macSeq >> 8).toString(16).padStart(2, '0')}:${(macSeq++ & 0xff).toString(16).padStart(2, '0')}`.toUpperCase();

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('station-delete');
  tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  manager = await signIn(api, m, 'manager', 0);
  owner = await api.ownerToken(m);
});
afterAll(() => api.close());

const bo = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: owner, body });
const locationOfKds = async () => (await tdb.selectFrom('kitchen_stations').select('location_id').where('id', '=', m.kds.station_id).executeTakeFirstOrThrow()).location_id;
const ticketCount = async (stationId: string) => Number((await tdb.selectFrom('kitchen_tickets').select((eb) => eb.fn.countAll<string>().as('n')).where('station_id', '=', stationId).executeTakeFirstOrThrow()).n);

async function discovered(): Promise<string> {
  const mc = mac();
  await api.deps.redis.flushdb();
  const r = await api.call('POST', '/api/pos/printers/discovery-report', { token: manager.device, deviceKey: true, body: { printers: [{ mac: mc, model: 'TM-m30III', paper_width_mm: 80 }] } });
  expect(r.status).toBe(200);
  return (await tdb.selectFrom('printers').select('id').where('mac', '=', mc).executeTakeFirstOrThrow()).id;
}

async function ticketAt(stationCategory: string, at = new Date()) {
  return createKitchenTickets(tdb, { source: 'transaction', sourceId: crypto.randomUUID(), locationId: await locationOfKds(), orderNo: '9', at, lines: [{ position: 0, item_id: m.items[0]!.id, category_id: stationCategory, name: 'Cake', qty: 1, modifiers: [] }] });
}

describe('deleting a station', () => {
  test('is 409 while a kitchen printer prints for it; the printer keeps its station; after the printer moves it is deleted', async () => {
    const st = await bo('POST', '/devices/stations', { location_id: await locationOfKds(), name: 'Bar', category_ids: [] });
    expect(st.status).toBe(201);
    const id = await discovered();
    expect((await bo('POST', `/devices/${id}/printer/configure`, { name: 'Bar printer', role: 'kitchen', station_id: st.body.data.id })).status).toBe(200);
    const del = await bo('DELETE', `/devices/stations/${st.body.data.id}`);
    expect(del.status).toBe(409);
    expect(del.body).toEqual({ message: STATION_HAS_PRINTER, reason: 'station_has_printer' });
    expect(await tdb.selectFrom('printers').select(['role', 'station_id']).where('id', '=', id).executeTakeFirstOrThrow()).toEqual({ role: 'kitchen', station_id: st.body.data.id });
    expect(await tdb.selectFrom('kitchen_stations').select('id').where('id', '=', st.body.data.id).executeTakeFirst()).toBeDefined();
    expect((await bo('POST', `/devices/${id}/printer/configure`, { name: 'Bar printer', role: 'kitchen', station_id: m.kds.station_id })).status).toBe(200);
    expect(await bo('DELETE', `/devices/stations/${st.body.data.id}`)).toMatchObject({ status: 200, body: { status: 'success', unbound_devices: 0 } });
  });

  test('is 409 while it has open orders, which stay on it', async () => {
    const cat = await tdb.selectFrom('categories').select('id').orderBy('id').executeTakeFirstOrThrow();
    const st = await bo('POST', '/devices/stations', { location_id: await locationOfKds(), name: 'Grill', category_ids: [cat.id] });
    expect(st.status).toBe(201);
    const mine = (await ticketAt(cat.id)).find((t) => t.station_id === st.body.data.id)!;
    const del = await bo('DELETE', `/devices/stations/${st.body.data.id}`);
    expect(del.status).toBe(409);
    expect(del.body).toEqual({ message: STATION_HAS_OPEN_ORDERS, reason: 'station_has_open_orders' });
    expect(await ticketCount(st.body.data.id)).toBe(1);
    await tdb.updateTable('kitchen_tickets').set({ status: 'Complete', ready_at: new Date(), completed_at: new Date() }).where('id', '=', mine.id).execute();
    expect((await bo('DELETE', `/devices/stations/${st.body.data.id}`)).status).toBe(200);
    expect(await ticketCount(st.body.data.id)).toBe(1);
  });

  test('keeps the kitchen report history of its tickets', async () => {
    const loc = await locationOfKds();
    const cat = await tdb.selectFrom('categories').select('id').orderBy('id').executeTakeFirstOrThrow();
    const st = await bo('POST', '/devices/stations', { location_id: loc, name: 'Pastry', category_ids: [cat.id] });
    expect(st.status).toBe(201);
    const mine = (await ticketAt(cat.id, new Date('2026-11-20T10:00:00Z'))).find((t) => t.station_id === st.body.data.id)!;
    await tdb.updateTable('kitchen_tickets').set({ status: 'Complete', ready_at: new Date('2026-11-20T10:05:00Z'), completed_at: new Date('2026-11-20T10:06:00Z') }).where('id', '=', mine.id).execute();
    const R = `/kds-reports/summary?location_id=${loc}&date=2026-11-20`;
    const before = await bo('GET', R);
    expect(before.status).toBe(200);
    expect(before.body.data.totals.orders).toBeGreaterThanOrEqual(1);
    expect((await bo('DELETE', `/devices/stations/${st.body.data.id}`)).status).toBe(200);
    const after = await bo('GET', R);
    expect(after.status).toBe(200);
    expect(after.body.data.totals).toEqual(before.body.data.totals);
    expect(after.body.data.hours).toEqual(before.body.data.hours);
    expect(after.body.data.stations.map((s: { station_id: string }) => s.station_id)).not.toContain(st.body.data.id);
  });
});
