import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createKitchenTickets } from '@pos/core/kitchen/tickets';
import { kitchenChannel } from '@pos/core/payments/payment-events';
import { createRedis } from '@pos/kernel';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

let api: TestApi;
let a: DemoSeedResult;
let b: DemoSeedResult;
let kds: string;
let kdsB: string;
let tdb: TenantDb;
const call = (method: string, path: string, token = kds) => api.call(method, path, { token, deviceKey: true });

async function ticket(m: DemoSeedResult = a, orderNo = '42'): Promise<string> {
  const db = bindTenant(api.deps.db, m.merchant.tenant_database);
  const cat = await db.selectFrom('categories').select('id').executeTakeFirstOrThrow();
  const [t] = await createKitchenTickets(db, {
    source: 'transaction',
    sourceId: crypto.randomUUID(),
    locationId: m.locations[0]!.id,
    orderNo,
    at: new Date(),
    lines: [{ position: 0, item_id: m.items[0]!.id, category_id: cat.id, name: 'Espresso', qty: 2, modifiers: [{ name: 'Oat milk' }] }],
  });
  return t!.id;
}

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('kd-a');
  b = await api.seed('kd-b');
  kds = await api.deviceToken(a, 'kds');
  kdsB = await api.deviceToken(b, 'kds');
  tdb = bindTenant(api.deps.db, a.merchant.tenant_database);
});
afterAll(() => api.close());

describe('GET /kds/orders', () => {
  test('the open orders of the device\'s station with their lines; completed ones leave the list', async () => {
    const id = await ticket();
    const r = await call('GET', '/api/kds/orders');
    expect(r.status).toBe(200);
    const mine = r.body.data.find((o: { id: string }) => o.id === id);
    expect(mine).toEqual({
      id,
      station_id: a.kds.station_id,
      order_no: '42',
      source: 'transaction',
      status: 'Queued',
      held: false,
      prioritized: false,
      queued_at: expect.any(String),
      started_at: null,
      ready_at: null,
      completed_at: null,
      customer_arrived_at: null,
      estimated_arrival_at: null,
      due_at: null,
      items: [{ position: 0, name: 'Espresso', qty: 2, status: 'Queued', modifiers: [{ name: 'Oat milk' }], modifier_statuses: ['Queued'] }],
    });
    await call('PUT', `/api/kds/${id}/complete`);
    expect((await call('GET', '/api/kds/orders')).body.data.some((o: { id: string }) => o.id === id)).toBe(false);
  });

  test('past 500 open orders the newest are sent, oldest first: a kitchen that never bumps still sees its new orders', async () => {
    const old = new Date(Date.now() - 3 * 86_400_000);
    const stale = Array.from({ length: 500 }, (_, i) => ({
      id: Bun.randomUUIDv7(),
      location_id: a.locations[0]!.id,
      station_id: a.kds.station_id,
      source: 'transaction' as const,
      source_id: crypto.randomUUID(),
      order_no: `S${i}`,
      queued_at: new Date(old.getTime() + i * 1000),
      updated_at: old,
    }));
    await tdb.insertInto('kitchen_tickets').values(stale).execute();
    try {
      const fresh = await ticket(a, 'NEW');
      const r = await call('GET', '/api/kds/orders');
      expect(r.status).toBe(200);
      // Before: the 500 oldest open tickets, so the new order was never on the screen.
      expect(r.body.data).toHaveLength(500);
      expect(r.body.data.at(-1).id).toBe(fresh);
      expect(r.body.data.some((o: { id: string }) => o.id === stale[0]!.id)).toBe(false);
      const queued = r.body.data.map((o: { queued_at: string }) => o.queued_at);
      expect(queued).toEqual([...queued].sort());
      await call('PUT', `/api/kds/${fresh}/complete`);
    } finally {
      await tdb.deleteFrom('kitchen_tickets').where('id', 'in', stale.map((t) => t.id)).execute();
    }
  });

  test('prioritised orders come first', async () => {
    const older = await ticket(a, 'old');
    const newer = await ticket(a, 'new');
    await call('PUT', `/api/kds/${newer}/prioritize`);
    const ids = (await call('GET', '/api/kds/orders')).body.data.map((o: { id: string }) => o.id);
    expect(ids.indexOf(newer)).toBeLessThan(ids.indexOf(older));
  });

  test('an unbound device sees no orders', async () => {
    await ticket();
    await tdb.updateTable('devices').set({ station_id: null }).where('id', '=', a.kds.device_id).execute();
    try {
      expect((await call('GET', '/api/kds/orders')).body).toEqual({ data: [] });
    } finally {
      await tdb.updateTable('devices').set({ station_id: a.kds.station_id }).where('id', '=', a.kds.device_id).execute();
    }
  });
});

describe('GET /kds/settings', () => {
  test('defaults and the seed station; then the bound KDS profile\'s settings', async () => {
    const r = await call('GET', '/api/kds/settings');
    expect(r.status).toBe(200);
    const cats = (await tdb.selectFrom('categories').select('id').execute()).map((c) => c.id).sort();
    expect(r.body).toEqual({
      data: {
        device_id: a.kds.device_id,
        location_id: a.locations[0]!.id,
        kds_profile_id: null,
        station: { id: a.kds.station_id, name: 'Kitchen', category_ids: cats, is_fallback: false },
        settings: { recall_window_minutes: 30, late_after_minutes: 15, sort: 'priority_first', show_modifiers: true, play_sound: true },
        overrides: {},
      },
    });
    const owner = await api.ownerToken(a);
    const p = await api.call('POST', '/api/back-office/kds-profiles', { token: owner, body: { name: 'Quiet', settings: { play_sound: false, recall_window_minutes: 5 } } });
    await api.call('POST', `/api/back-office/devices/${a.kds.device_id}/profile`, { token: owner, body: { device_profile_id: p.body.data.id } });
    try {
      const s = (await call('GET', '/api/kds/settings')).body.data;
      expect(s.kds_profile_id).toBe(p.body.data.id);
      expect(s.settings).toEqual({ recall_window_minutes: 5, late_after_minutes: 15, sort: 'priority_first', show_modifiers: true, play_sound: false });
    } finally {
      await api.call('POST', `/api/back-office/devices/${a.kds.device_id}/profile`, { token: owner, body: { device_profile_id: null } });
    }
  });
});

describe('order actions', () => {
  test('a full service through every action, with recorded times and live events', async () => {
    const id = await ticket();
    const sub = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'kds-test');
    const events: { action: string; order: { id: string; status: string } }[] = [];
    await sub.subscribe(kitchenChannel(a.merchant.tenant_database));
    sub.on('message', (_c, msg) => events.push(JSON.parse(msg)));
    try {
      const step = async (action: string, expected: Record<string, unknown>) => {
        const r = await call('PUT', `/api/kds/${id}/${action}`);
        expect(r.status).toBe(200);
        expect(r.body.data).toMatchObject(expected);
        return r.body.data;
      };
      await step('hold', { status: 'Queued', held: true });
      expect(await call('PUT', `/api/kds/${id}/in-progress`)).toMatchObject({ status: 409, body: { reason: 'order_held', message: 'This order is on hold. Release it first.' } });
      await step('release', { held: false });
      const started = await step('in-progress', { status: 'In Progress' });
      expect(started.started_at).not.toBeNull();
      await step('prioritize', { prioritized: true });
      await step('unprioritize', { prioritized: false });
      const ready = await step('ready', { status: 'Ready' });
      expect(ready.ready_at).not.toBeNull();
      expect(await call('PUT', `/api/kds/${id}/hold`)).toMatchObject({ status: 409, body: { reason: 'order_ready' } });
      const done = await step('complete', { status: 'Complete' });
      expect(done.completed_at).not.toBeNull();
      expect(await call('PUT', `/api/kds/${id}/prioritize`)).toMatchObject({ status: 409, body: { reason: 'order_complete', message: 'This order is complete. Recall it first.' } });
      // Already complete: answered unchanged, nothing published.
      await step('complete', { status: 'Complete' });
      await step('recall', { status: 'Ready', completed_at: null });
      expect(await call('PUT', `/api/kds/${id}/recall`)).toMatchObject({ status: 409, body: { reason: 'order_not_complete' } });
      const row = await tdb.selectFrom('kitchen_tickets').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      expect(row.recalled_at).not.toBeNull();
      const deadline = Date.now() + 2000;
      while (events.filter((e) => e.order?.id === id).length < 9 && Date.now() < deadline) await Bun.sleep(20);
      expect(events.filter((e) => e.order?.id === id).map((e) => e.action)).toEqual(['hold', 'release', 'in-progress', 'prioritize', 'unprioritize', 'ready', 'complete', 'recall']);
    } finally {
      sub.disconnect();
    }
  });

  test('recall after the profile\'s window is refused', async () => {
    const id = await ticket();
    await call('PUT', `/api/kds/${id}/complete`);
    await tdb.updateTable('kitchen_tickets').set({ completed_at: new Date(Date.now() - 31 * 60_000) }).where('id', '=', id).execute();
    expect(await call('PUT', `/api/kds/${id}/recall`)).toMatchObject({ status: 409, body: { reason: 'recall_window_passed', message: 'This order was completed too long ago to be recalled.' } });
    expect((await tdb.selectFrom('kitchen_tickets').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status).toBe('Complete');
  });
});

describe('authentication, gating and isolation', () => {
  test('401 without a token, 403 for another token type, 401 without the device key', async () => {
    expect(await api.call('GET', '/api/kds/orders')).toMatchObject({ status: 401, body: { message: 'Unauthenticated' } });
    const kiosk = await api.deviceToken(a, 'kiosk');
    expect(await call('GET', '/api/kds/orders', kiosk)).toMatchObject({ status: 403, body: { message: 'Unauthorized: Invalid user type' } });
    expect((await api.call('GET', '/api/kds/orders', { token: kds })).status).toBe(401);
  });

  test('402 without an active subscription, on the list and the actions', async () => {
    const id = await ticket();
    await tdb.updateTable('devices').set({ subscription_active_until: new Date(Date.now() - 1000) }).where('id', '=', a.kds.device_id).execute();
    api.deps.authCache.clear();
    try {
      const fresh = await api.deviceToken(a, 'kds');
      expect((await call('GET', '/api/kds/orders', fresh)).status).toBe(402);
      expect((await call('PUT', `/api/kds/${id}/ready`, fresh)).status).toBe(402);
      expect((await tdb.selectFrom('kitchen_tickets').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status).toBe('Queued');
    } finally {
      await tdb.updateTable('devices').set({ subscription_active_until: new Date(Date.now() + 86_400_000) }).where('id', '=', a.kds.device_id).execute();
      api.deps.authCache.clear();
    }
  });

  test('another merchant\'s or another station\'s order is not found and unchanged', async () => {
    const theirs = await ticket(b);
    const nf = { status: 404, body: { message: 'Unable to locate the order you requested.' } };
    expect(await call('PUT', `/api/kds/${theirs}/ready`)).toMatchObject(nf);
    expect(await call('PUT', `/api/kds/not-an-id/ready`)).toMatchObject(nf);
    expect((await call('GET', '/api/kds/orders', kdsB)).body.data.some((o: { id: string }) => o.id === theirs)).toBe(true);
    const other = Bun.randomUUIDv7();
    await tdb.insertInto('kitchen_stations').values({ id: other, location_id: a.locations[0]!.id, name: 'Other', created_at: new Date(), updated_at: new Date() }).execute();
    const mine = await ticket();
    await tdb.updateTable('kitchen_tickets').set({ station_id: other }).where('id', '=', mine).execute();
    expect(await call('PUT', `/api/kds/${mine}/ready`)).toMatchObject(nf);
    expect((await tdb.selectFrom('kitchen_tickets').select('status').where('id', '=', mine).executeTakeFirstOrThrow()).status).toBe('Queued');
  });
});
