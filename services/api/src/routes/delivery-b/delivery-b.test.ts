import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { startDeliveryBSimulator, type DeliveryBSimulator } from '@pos/providers/delivery-b/delivery-b-simulator';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { makeMember } from '../team/team.test-support.ts';
import { connectTestDeliveryBAccount } from '@pos/core/integrations/delivery-b-account.test-support';

let sim: DeliveryBSimulator;
let api: TestApi;
let m: DemoSeedResult;
let other: DemoSeedResult;
let owner: string;
let otherOwner: string;
let loc: string;
const base = () => `/api/back-office/delivery-b/${loc}`;
const connections = (merchantId: string) =>
  api.deps.db.selectFrom('integration_connections').select(['external_ref', 'location_id', 'status', 'settings']).where('merchant_id', '=', merchantId).where('provider', '=', 'delivery-b').execute();
const TOKEN_KEY = 'de'.repeat(32);
const DEFAULTS = { auto_accept_orders: false, prep_time_minutes: 15, fulfillment: { delivery: true, pickup: false } };

beforeAll(async () => {
  sim = startDeliveryBSimulator({ apiToken: 'delivery-b-test-token' });
  sim.addStore('db-store-1', 'Centre');
  sim.addStore('db-store-2', 'Station');
  sim.addStore('db-store-3', 'Harbour');
  api = await createTestApi({ env: { DELIVERY_B_API_URL: sim.url, DELIVERY_B_API_TOKEN: 'delivery-b-test-token', INTEGRATION_TOKEN_KEY: TOKEN_KEY } });
  m = await api.seed('dbb-admin');
  other = await api.seed('dbb-other');
  // Each merchant's delivery-b account (OAuth) owns its stores: the only ones it can list and connect.
  await connectTestDeliveryBAccount(api.deps.db, sim, { merchantId: m.merchant.id, tokenKeyHex: TOKEN_KEY, stores: ['db-store-1', 'db-store-2', 'db-store-3'] });
  await connectTestDeliveryBAccount(api.deps.db, sim, { merchantId: other.merchant.id, tokenKeyHex: TOKEN_KEY, stores: ['db-store-4'] });
  owner = await api.ownerToken(m);
  otherOwner = await api.ownerToken(other);
  loc = m.locations[0]!.id;
}, 60_000);
afterAll(async () => {
  await api.close();
  await sim.stop();
});

describe('delivery-b administration', () => {
  test('status before enabling: disabled, no store; the rest is a 404', async () => {
    expect(await api.call('GET', base(), { token: owner })).toMatchObject({
      status: 200,
      body: { data: { enabled: false, store_id: null, status: 'disconnected', connected_at: null, menu_synced_at: null, settings: DEFAULTS } },
    });
    const notFound = { status: 404, body: { message: 'Unable to locate the delivery-b integration you requested.' } };
    expect(await api.call('POST', `${base()}/sync-menu`, { token: owner })).toMatchObject(notFound);
    expect(await api.call('GET', `${base()}/store/status`, { token: owner })).toMatchObject(notFound);
    expect(await api.call('GET', `${base()}/configuration`, { token: owner })).toMatchObject(notFound);
    expect(await api.call('POST', `${base()}/select-store`, { token: owner, body: { store_id: 'db-store-1' } })).toMatchObject(notFound);
    expect(await connections(m.merchant.id)).toEqual([]);
  });

  test("store list: the stores of the merchant's delivery-b account; an unknown store is a 422 on store_id with nothing written", async () => {
    expect((await api.call('GET', `${base()}/store-list`, { token: owner })).body).toEqual({
      data: [
        { id: 'db-store-1', name: 'Centre', selected: false },
        { id: 'db-store-2', name: 'Station', selected: false },
        { id: 'db-store-3', name: 'Harbour', selected: false },
      ],
    });
    expect(await api.call('POST', base(), { token: owner, body: { store_id: 'no-such-store' } })).toMatchObject({ status: 422, body: { errors: { store_id: ['The store could not be found at delivery-b.'] } } });
    expect(await connections(m.merchant.id)).toEqual([]);
    // There is no PUT on the root (settings are at /settings).
    expect((await api.call('PUT', base(), { token: owner, body: {} })).status).toBe(404);
  });

  test('enable, settings, store, status, prep time, fulfillment, menu sync and read, select-store, logs, disable', async () => {
    const en = await api.call('POST', base(), { token: owner, body: { store_id: 'db-store-1', auto_accept_orders: true } });
    expect(en.status).toBe(200);
    expect(en.body).toMatchObject({ status: 'success', data: { enabled: true, store_id: 'db-store-1', status: 'active', settings: { ...DEFAULTS, auto_accept_orders: true } } });
    expect(sim.stores.get('db-store-1')).toMatchObject({ integrationEnabled: true, integratorRef: loc });

    expect((await api.call('PUT', `${base()}/settings`, { token: owner, body: { auto_accept_orders: false } })).body.data.settings).toEqual(DEFAULTS);
    expect((await api.call('GET', `${base()}/configuration`, { token: owner })).body).toEqual({ data: { store_id: 'db-store-1', ...DEFAULTS } });
    expect((await api.call('GET', `${base()}/store`, { token: owner })).body).toEqual({
      data: { id: 'db-store-1', name: 'Centre', integration_enabled: true, integrator_store_id: loc, status: 'offline', prep_time_minutes: 15, fulfillment: { delivery: true, pickup: false } },
    });

    expect((await api.call('GET', `${base()}/store/status`, { token: owner })).body).toEqual({ data: { status: 'offline' } });
    expect((await api.call('PUT', `${base()}/store/status`, { token: owner, body: { status: 'online' } })).body).toEqual({ status: 'success', data: { status: 'online' } });
    expect(sim.stores.get('db-store-1')!.status).toBe('online');
    expect((await api.call('PUT', `${base()}/store/status`, { token: owner, body: { status: 'OPEN' } })).status).toBe(422);

    expect((await api.call('PUT', `${base()}/store/prep-time`, { token: owner, body: { prep_time_minutes: 25 } })).body.data.settings.prep_time_minutes).toBe(25);
    expect(sim.stores.get('db-store-1')!.prepTimeMinutes).toBe(25);
    expect((await api.call('PUT', `${base()}/store/prep-time`, { token: owner, body: { prep_time_minutes: 241 } })).status).toBe(422);

    expect((await api.call('PUT', `${base()}/store/fulfillment`, { token: owner, body: { delivery: true, pickup: true } })).body.data.settings.fulfillment).toEqual({ delivery: true, pickup: true });
    expect(sim.stores.get('db-store-1')!.fulfillment).toEqual({ delivery: true, pickup: true });
    // delivery-b refuses turning both off: a 409 relayed, nothing changed here.
    expect(await api.call('PUT', `${base()}/store/fulfillment`, { token: owner, body: { delivery: false, pickup: false } })).toMatchObject({
      status: 409,
      body: { message: 'delivery-b refused the request: At least one fulfillment mode must stay on' },
    });
    expect((await connections(m.merchant.id))[0]!.settings).toMatchObject({ fulfillment: { delivery: true, pickup: true } });

    // Menu read before any push: delivery-b has none (409).
    expect((await api.call('GET', `${base()}/menu`, { token: owner })).status).toBe(409);
    // delivery-b's "menu changed" event (it sets menu_sync_requested_at) is no sync: still none shown (before: its time).
    await api.deps.db.updateTable('integration_connections').set({ menu_sync_requested_at: new Date() }).where('merchant_id', '=', m.merchant.id).where('provider', '=', 'delivery-b').execute();
    expect((await api.call('GET', base(), { token: owner })).body.data.menu_synced_at).toBeNull();
    const menu = await api.call('POST', `${base()}/sync-menu`, { token: owner });
    expect(menu.status).toBe(200);
    const pushed = sim.stores.get('db-store-1')!.menu!;
    expect(menu.body).toEqual({ status: 'success', items: pushed.length });
    expect(pushed.length).toBeGreaterThan(0);
    const sample = pushed[0]!;
    const item = await api.deps.db.withSchema(m.merchant.tenant_database).selectFrom('items' as never).select(['name' as never, 'unit_price' as never]).where('id' as never, '=', sample.id as never).executeTakeFirstOrThrow();
    expect(item).toEqual({ name: sample.name, unit_price: sample.price } as never);
    expect((await api.call('GET', `${base()}/menu`, { token: owner })).body).toEqual({ data: pushed });
    expect((await api.call('GET', base(), { token: owner })).body.data.menu_synced_at).not.toBeNull();

    const sel = await api.call('POST', `${base()}/select-store`, { token: owner, body: { store_id: 'db-store-3' } });
    expect(sel.body).toMatchObject({ status: 'success', data: { enabled: true, store_id: 'db-store-3' } });
    expect(sim.stores.get('db-store-1')!.integrationEnabled).toBe(false);
    expect(sim.stores.get('db-store-3')).toMatchObject({ integrationEnabled: true, integratorRef: loc });
    // The store let go stays, disabled (its order events still import); the live one is active.
    expect((await connections(m.merchant.id)).sort((x, y) => y.external_ref.localeCompare(x.external_ref))).toEqual([
      { external_ref: 'db-store-3', location_id: loc, status: 'active', settings: { auto_accept_orders: false, prep_time_minutes: 15, fulfillment: { delivery: true, pickup: false } } },
      { external_ref: 'db-store-1', location_id: loc, status: 'disabled', settings: { auto_accept_orders: false, prep_time_minutes: 25, fulfillment: { delivery: true, pickup: true } } },
    ]);
    expect((await api.call('GET', `${base()}/store-list`, { token: owner })).body.data.filter((s: { selected: boolean }) => s.selected).map((s: { id: string }) => s.id)).toEqual(['db-store-3']);

    const logs = await api.call('GET', `${base()}/logs`, { token: owner });
    expect(logs.body.data.map((e: { event_type: string }) => e.event_type)).toEqual(['store_selected']);
    expect(logs.body.data[0]).toMatchObject({ kind: 'admin', status: 'done', reference: 'db-store-3' });

    const dis = await api.call('DELETE', base(), { token: owner });
    expect(dis.body).toMatchObject({ status: 'success', data: { enabled: false, status: 'disabled', store_id: 'db-store-3' } });
    expect(sim.stores.get('db-store-3')!.integrationEnabled).toBe(false);
    expect((await api.call('POST', `${base()}/sync-menu`, { token: owner })).status).toBe(404);
    expect((await api.call('GET', `${base()}/logs?limit=5`, { token: owner })).body.data.map((e: { event_type: string }) => e.event_type)).toEqual(['disabled', 'store_selected']);
  });

  test('logs limit: default 50, clamped to 1-200', async () => {
    // The location's store (the one it let go earlier is kept, disabled).
    const conn = await api.deps.db.selectFrom('integration_connections').select('id').where('merchant_id', '=', m.merchant.id).where('provider', '=', 'delivery-b').where('external_ref', '=', 'db-store-3').executeTakeFirstOrThrow();
    const now = Date.now();
    await api.deps.db
      .insertInto('integration_events')
      .values(Array.from({ length: 230 }, (_, i) => ({ id: Bun.randomUUIDv7(), connection_id: conn.id, merchant_id: m.merchant.id, location_id: loc, provider: 'delivery-b', kind: 'order', event_type: 'order.created', event_id: `evb-${i}`, status: 'pending', created_at: new Date(now - i * 1000) })))
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

  test("another merchant's store (of its account, connected by it) cannot be connected: the unknown store's 422", async () => {
    const otherLoc = other.locations[0]!.id;
    expect((await api.call('POST', `/api/back-office/delivery-b/${otherLoc}`, { token: otherOwner, body: { store_id: 'db-store-4' } })).status).toBe(200);
    expect(await api.call('POST', base(), { token: owner, body: { store_id: 'db-store-4' } })).toMatchObject({ status: 422, body: { errors: { store_id: ['The store could not be found at delivery-b.'] } } });
    expect(await connections(other.merchant.id)).toMatchObject([{ external_ref: 'db-store-4', location_id: otherLoc, status: 'active' }]);
  });

  test('permissions: reads and sync-menu need none, the MIS routes need MANAGE_INTEGRATION_SETTINGS', async () => {
    expect((await api.call('POST', base(), { token: owner, body: { store_id: 'db-store-1' } })).status).toBe(200);
    const viewer = await makeMember(api, m, ['VIEW_ITEMS'], { allLocations: true });
    for (const path of ['', '/store-list', '/configuration', '/store', '/store/status', '/logs']) expect((await api.call('GET', `${base()}${path}`, { token: viewer.token })).status).toBe(200);
    expect((await api.call('POST', `${base()}/sync-menu`, { token: viewer.token })).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', base(), { store_id: 'db-store-1' }],
      ['DELETE', base(), undefined],
      ['POST', `${base()}/select-store`, { store_id: 'db-store-3' }],
      ['PUT', `${base()}/settings`, { auto_accept_orders: true }],
      ['PUT', `${base()}/store/status`, { status: 'online' }],
      ['PUT', `${base()}/store/prep-time`, { prep_time_minutes: 30 }],
      ['PUT', `${base()}/store/fulfillment`, { delivery: true, pickup: true }],
    ] as const)
      expect(await api.call(method, path, { token: viewer.token, body })).toMatchObject({ status: 403, body: { message: 'Unauthorized: Insufficient permissions' } });
    expect(sim.stores.get('db-store-1')).toMatchObject({ integrationEnabled: true, prepTimeMinutes: 25 });
    expect((await api.call('GET', base())).status).toBe(401);
  });

  test("isolation: another merchant's location is a 404 and its connection is untouched", async () => {
    const otherLoc = other.locations[0]!.id;
    const before = await connections(other.merchant.id);
    for (const [method, path, body] of [
      ['GET', '', undefined],
      ['DELETE', '', undefined],
      ['GET', '/logs', undefined],
      ['GET', '/store', undefined],
      ['GET', '/store/status', undefined],
      ['PUT', '/store/status', { status: 'offline' }],
      ['PUT', '/settings', { auto_accept_orders: true }],
      ['POST', '/sync-menu', undefined],
    ] as const)
      expect(await api.call(method, `/api/back-office/delivery-b/${otherLoc}${path}`, { token: owner, body })).toMatchObject({ status: 404, body: { message: 'Unable to locate the location you requested.' } });
    expect(await connections(other.merchant.id)).toEqual(before);
    expect(sim.stores.get('db-store-4')!.integrationEnabled).toBe(true);
  });
});
