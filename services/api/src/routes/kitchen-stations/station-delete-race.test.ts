import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { bindTenant, type TenantDb } from '@pos/db';
import { createKitchenTickets } from '@pos/core/kitchen/tickets';
import { STATION_HAS_OPEN_ORDERS } from '@pos/core/kitchen/stations';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

// A station deleted at the moment a ticket is written for it (the tickets' station foreign key is gone,
// migration 2026-11-28-090): afterwards either the station exists with its ticket, or the delete went
// through and no ticket points at it. Each order of the two is forced with a held lock.
let api: TestApi;
let m: DemoSeedResult;
let tdb: TenantDb;
let owner: string;

beforeAll(async () => {
  api = await createTestApi();
  m = await api.seed('station-race');
  tdb = bindTenant(api.deps.db, m.merchant.tenant_database);
  owner = await api.ownerToken(m);
});
afterAll(() => api.close());

const bo = (method: string, path: string, body?: unknown) => api.call(method, `/api/back-office${path}`, { token: owner, body });
const locationOfKds = async () => (await tdb.selectFrom('kitchen_stations').select('location_id').where('id', '=', m.kds.station_id).executeTakeFirstOrThrow()).location_id;
const ticketCount = async (stationId: string) => Number((await tdb.selectFrom('kitchen_tickets').select((eb) => eb.fn.countAll<string>().as('n')).where('station_id', '=', stationId).executeTakeFirstOrThrow()).n);
const stationExists = async (id: string) => (await tdb.selectFrom('kitchen_stations').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
/** Sessions of this database waiting for a lock. */
const lockWaiters = async () => Number((await sql<{ n: string }>`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(api.deps.db)).rows[0]!.n);

/** Resolves once `cond` holds or `ms` passed (whichever first); the caller asserts the outcome. */
async function until(cond: () => Promise<boolean> | boolean, ms = 3_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end && !(await cond())) await Bun.sleep(20);
}

function order(locationId: string, categoryId: string) {
  return { source: 'transaction' as const, sourceId: crypto.randomUUID(), locationId, orderNo: '7', at: new Date(), lines: [{ position: 0, item_id: m.items[0]!.id, category_id: categoryId, name: 'Soup', qty: 1, modifiers: [] }] };
}

async function newStation(name: string): Promise<{ id: string; categoryId: string; locationId: string }> {
  const loc = await locationOfKds();
  const cat = await tdb.selectFrom('categories').select('id').orderBy('id').executeTakeFirstOrThrow();
  const st = await bo('POST', '/devices/stations', { location_id: loc, name, category_ids: [cat.id] });
  expect(st.status).toBe(201);
  return { id: st.body.data.id, categoryId: cat.id, locationId: loc };
}

describe('deleting a station while a ticket is written for it', () => {
  test('the delete holding its station: the ticket is not written for the station it deleted', async () => {
    const st = await newStation('Soup');
    // The KDS device on the station; its row held by another transaction keeps the delete waiting after it locked the station.
    await tdb.updateTable('devices').set({ station_id: st.id }).where('id', '=', m.kds.device_id).execute();
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let held!: () => void;
    const holding = new Promise<void>((r) => (held = r));
    const holder = tdb.transaction().execute(async (h) => {
      await h.selectFrom('devices').select('id').where('id', '=', m.kds.device_id).forUpdate().execute();
      held();
      await released;
    });
    await holding;
    const del = bo('DELETE', `/devices/stations/${st.id}`);
    await until(async () => (await lockWaiters()) >= 1);
    let ticketsDone = false;
    const tickets = createKitchenTickets(tdb, order(st.locationId, st.categoryId)).finally(() => (ticketsDone = true));
    // The ticket statement either finishes (it did not wait for the station) or waits behind the delete.
    await until(async () => ticketsDone || (await lockWaiters()) >= 2);
    release();
    await holder;
    const [d, created] = await Promise.all([del, tickets]);
    expect(d).toMatchObject({ status: 200, body: { status: 'success', unbound_devices: 1 } });
    expect(await stationExists(st.id)).toBe(false);
    expect(await ticketCount(st.id)).toBe(0);
    // The order's ticket at the station still there (the seed's, serving every category) is written.
    expect(created.map((t) => t.station_id)).toEqual([m.kds.station_id]);
  });

  test('the ticket written first (its transaction still open): the delete waits for it and is then refused', async () => {
    const st = await newStation('Grill');
    let del!: Promise<Awaited<ReturnType<typeof bo>>>;
    let delDone = false;
    const created = await tdb.transaction().execute(async (tx) => {
      const c = await createKitchenTickets(tx, order(st.locationId, st.categoryId));
      del = bo('DELETE', `/devices/stations/${st.id}`).finally(() => (delDone = true));
      await until(async () => delDone || (await lockWaiters()) >= 1);
      return c;
    });
    const d = await del;
    expect(d.status).toBe(409);
    expect(d.body).toEqual({ message: STATION_HAS_OPEN_ORDERS, reason: 'station_has_open_orders' });
    expect(await stationExists(st.id)).toBe(true);
    expect(await ticketCount(st.id)).toBe(1);
    expect(created.map((t) => t.station_id).sort()).toEqual([m.kds.station_id, st.id].sort());
  });
});
