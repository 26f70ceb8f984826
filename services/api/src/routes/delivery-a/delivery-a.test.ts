import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startDeliveryASimulator, type DeliveryASimulator } from '@pos/providers/delivery-a/delivery-a-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';

let sim: DeliveryASimulator;
/** The store's link code at delivery-a (what its owner would copy from delivery-a's portal). */
const linkOf = (store: string) => sim.stores.get(store)?.linkCode ?? 'LINK-UNKNOWN';
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let owner: string;
let otherOwner: string;
let loc: string;
const base = () => `/api/back-office/delivery-a/${loc}`;
const connections = (merchantId: string) =>
  api.deps.db.selectFrom('integration_connections').select(['external_ref', 'location_id', 'status', 'settings']).where('merchant_id', '=', merchantId).where('provider', '=', 'delivery-a').execute();

beforeAll(async () => {
  sim = startDeliveryASimulator({ apiToken: 'delivery-a-test-token' });
  sim.addStore('da-store-1', 'Centre');
  sim.addStore('da-store-2', 'Station');
  api = await createTestApi({ env: { DELIVERY_A_API_URL: sim.url, DELIVERY_A_API_TOKEN: 'delivery-a-test-token' } });
  m = await api.seed('da-admin');
  other = await api.seed('da-other');
  owner = await api.ownerToken(m);
  otherOwner = await api.ownerToken(other);
  loc = m.locations[0]!.id;
}, 60_000);
afterAll(async () => {
  await api.close();
  await sim.stop();
});

describe('delivery-a administration', () => {
  test('status before enabling: disabled, no store', async () => {
    expect(await api.call('GET', base(), { token: owner })).toMatchObject({
      status: 200,
      body: { data: { enabled: false, store_id: null, status: 'disconnected', connected_at: null, menu_synced_at: null, settings: { auto_accept_orders: false, prep_time_minutes: 15 } } },
    });
    // Everything that needs the connection is a 404 until then.
    expect(await api.call('POST', `${base()}/sync-menu`, { token: owner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the delivery-a integration you requested.' } });
    expect((await api.call('GET', `${base()}/site-status`, { token: owner })).status).toBe(404);
  });

  test('an unknown store is a 422 on store_id; nothing written', async () => {
    const r = await api.call('POST', base(), { token: owner, body: { store_id: 'no-such-store', link_code: linkOf('no-such-store') } });
    expect(r).toMatchObject({ status: 422, body: { errors: { store_id: ['The store could not be found at delivery-a.'] } } });
    expect(await connections(m.merchant.id)).toEqual([]);
  });

  test('enable, update, sync menu and availability, site status, logs, disable', async () => {
    const en = await api.call('POST', base(), { token: owner, body: { store_id: 'da-store-1', link_code: linkOf('da-store-1'), prep_time_minutes: 20 } });
    expect(en.status).toBe(200);
    expect(en.body).toMatchObject({ status: 'success', data: { enabled: true, store_id: 'da-store-1', status: 'active', settings: { auto_accept_orders: false, prep_time_minutes: 20 } } });
    expect(sim.stores.get('da-store-1')).toMatchObject({ integrationEnabled: true, integratorRef: loc });

    expect((await api.call('PUT', base(), { token: owner, body: { auto_accept_orders: true } })).body.data.settings).toEqual({ auto_accept_orders: true, prep_time_minutes: 20 });

    const menu = await api.call('POST', `${base()}/sync-menu`, { token: owner });
    expect(menu.status).toBe(200);
    const pushed = sim.stores.get('da-store-1')!.menu!.items;
    expect(menu.body).toEqual({ status: 'success', items: pushed.length });
    expect(pushed.length).toBeGreaterThan(0);
    const sample = pushed[0]!;
    const item = await api.deps.db.withSchema(m.merchant.tenant_database).selectFrom('items' as never).select(['name' as never, 'unit_price' as never]).where('id' as never, '=', sample.id as never).executeTakeFirstOrThrow();
    expect(item).toEqual({ name: sample.name, unit_price: sample.price } as never);

    const av = await api.call('POST', `${base()}/sync-availability`, { token: owner });
    expect(av.body).toEqual({ status: 'success', updated: pushed.length });
    expect(sim.stores.get('da-store-1')!.availabilityPushes).toBe(1);

    expect((await api.call('GET', `${base()}/site-status`, { token: owner })).body).toEqual({ data: { status: 'CLOSED' } });
    expect((await api.call('PUT', `${base()}/site-status`, { token: owner, body: { status: 'OPEN' } })).body).toEqual({ status: 'success', data: { status: 'OPEN' } });
    expect(sim.stores.get('da-store-1')!.siteStatus).toBe('OPEN');
    expect((await api.call('PUT', `${base()}/site-status`, { token: owner, body: { status: 'BUSY' } })).status).toBe(422);

    const logs = await api.call('GET', `${base()}/logs`, { token: owner });
    expect(logs.body.data.map((e: { event_type: string }) => e.event_type)).toEqual(['site_status', 'availability_synced', 'menu_synced', 'updated', 'enabled']);
    expect(logs.body.data[4]).toMatchObject({ kind: 'admin', status: 'done', reference: 'da-store-1' });

    const dis = await api.call('DELETE', base(), { token: owner });
    expect(dis.body).toMatchObject({ status: 'success', data: { enabled: false, status: 'disabled', store_id: 'da-store-1' } });
    expect(sim.stores.get('da-store-1')!.integrationEnabled).toBe(false);
    expect((await api.call('POST', `${base()}/sync-menu`, { token: owner })).status).toBe(404);
  });

  test('logs limit: default 50, clamped to 1-200', async () => {
    const conn = await api.deps.db.selectFrom('integration_connections').select('id').where('merchant_id', '=', m.merchant.id).where('provider', '=', 'delivery-a').executeTakeFirstOrThrow();
    const now = Date.now();
    await api.deps.db
      .insertInto('integration_events')
      .values(Array.from({ length: 230 }, (_, i) => ({ id: Bun.randomUUIDv7(), connection_id: conn.id, merchant_id: m.merchant.id, location_id: loc, provider: 'delivery-a', kind: 'order', event_type: 'orders.notification', event_id: `ev-${i}`, status: 'pending', created_at: new Date(now - i * 1000) })))
      .execute();
    const count = async (q: string) => (await api.call('GET', `${base()}/logs${q}`, { token: owner })).body.data.length;
    expect(await count('')).toBe(50);
    expect(await count('?limit=0')).toBe(1);
    expect(await count('?limit=-5')).toBe(1);
    expect(await count('?limit=7')).toBe(7);
    expect(await count('?limit=5000')).toBe(200);
    // Past nine digits is still an integer: clamped too, not refused.
    expect(await count('?limit=10000000000')).toBe(200);
    expect(await count('?limit=-10000000000')).toBe(1);
    expect((await api.call('GET', `${base()}/logs?limit=abc`, { token: owner })).status).toBe(422);
    expect((await api.call('GET', `${base()}/logs?limit=1.5`, { token: owner })).status).toBe(422);
  });

  test('a store connected to another merchant is a 409', async () => {
    const otherLoc = other.locations[0]!.id;
    expect((await api.call('POST', `/api/back-office/delivery-a/${otherLoc}`, { token: otherOwner, body: { store_id: 'da-store-2', link_code: linkOf('da-store-2') } })).status).toBe(200);
    expect(await api.call('POST', base(), { token: owner, body: { store_id: 'da-store-2', link_code: linkOf('da-store-2') } })).toMatchObject({ status: 409, body: { message: 'This delivery-a store is already connected elsewhere.' } });
  });

  test('permissions: reads need none, writes need MANAGE_INTEGRATION_SETTINGS', async () => {
    const viewer = await makeMember(api, m, ['VIEW_ITEMS'], { allLocations: true });
    expect((await api.call('GET', base(), { token: viewer.token })).status).toBe(200);
    expect((await api.call('GET', `${base()}/logs`, { token: viewer.token })).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', base(), { store_id: 'da-store-1', link_code: linkOf('da-store-1') }],
      ['PUT', base(), { auto_accept_orders: false }],
      ['DELETE', base(), undefined],
      ['POST', `${base()}/sync-menu`, undefined],
      ['POST', `${base()}/sync-availability`, undefined],
      ['PUT', `${base()}/site-status`, { status: 'OPEN' }],
    ] as const)
      expect(await api.call(method, path, { token: viewer.token, body })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect((await api.call('GET', base())).status).toBe(401);
  });

  test("isolation: another merchant's location is a 404 and its connection is untouched", async () => {
    const otherLoc = other.locations[0]!.id;
    const before = await connections(other.merchant.id);
    for (const [method, path] of [
      ['GET', ''],
      ['DELETE', ''],
      ['GET', '/logs'],
      ['GET', '/site-status'],
      ['POST', '/sync-menu'],
    ] as const)
      expect(await api.call(method, `/api/back-office/delivery-a/${otherLoc}${path}`, { token: owner })).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
    expect(await connections(other.merchant.id)).toEqual(before);
    expect(sim.stores.get('da-store-2')!.integrationEnabled).toBe(true);
  });
});
