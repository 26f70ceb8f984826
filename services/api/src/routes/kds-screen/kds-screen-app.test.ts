import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { bindTenant, type TenantDb } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createKitchenTickets } from '@pos/core/kitchen/tickets';
import { removeKitchenTickets } from '@pos/core/kitchen/remove-tickets';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/**
 * The kitchen screen's script (static/app.js) run against a minimal DOM: its HTTP calls go to the
 * real API, its socket is driven by hand with real kitchen events. The browser run is
 * e2e/tests/kds-screen.spec.ts.
 */
let api: TestApi;
let a: DemoSeedResult;
let kds: string;
let tdb: TenantDb;

class El {
  children: El[] = [];
  textContent = '';
  hidden = false;
  className = '';
  dataset: Record<string, string> = {};
  attrs: Record<string, string> = {};
  listeners: Record<string, (e: unknown) => void> = {};
  constructor(public tag: string) {}
  addEventListener(k: string, f: (e: unknown) => void) { this.listeners[k] = f; }
  appendChild(c: El) { this.children.push(c); return c; }
  replaceChildren(...c: El[]) { this.children = c; }
  setAttribute(k: string, v: string) { this.attrs[k] = v; }
}

const settle = () => new Promise((r) => setTimeout(r, 50));
/** Waits until `ready()` holds (up to 5 s): a fixed pause was too short on a loaded machine. */
async function until(ready: () => boolean): Promise<void> {
  for (let waited = 0; !ready() && waited < 5000; waited += 10) await new Promise((r) => setTimeout(r, 10));
}
const SRC = readFileSync(new URL('./static/app.js', import.meta.url), 'utf8');

/** Opens the screen signed in as the seeded KDS device; `holdOrders` holds GET /kds/orders answers (taken at once) until released. */
async function openScreen(opts: { holdOrders?: boolean; holdActions?: boolean } = {}) {
  const els = new Map<string, El>();
  const byId = (id: string) => { if (!els.has(id)) els.set(id, new El('div')); return els.get(id)!; };
  const docListeners: Record<string, () => void> = {};
  const document = { getElementById: byId, createElement: (tag: string) => new El(tag), addEventListener: (k: string, f: () => void) => { docListeners[k] = f; } };
  const store = new Map<string, string>();
  const localStorage = { getItem: (k: string) => store.get(k) ?? null, setItem: (k: string, v: string) => void store.set(k, v), removeItem: (k: string) => void store.delete(k) };
  const location = { hash: `#token=${kds}&key=${api.env.DEVICE_API_KEY}`, pathname: '/kds-screen', search: '', protocol: 'http:', host: 'localhost' };
  let release: () => void = () => {};
  const gate = new Promise<void>((r) => { release = r; });
  let releaseActions: () => void = () => {};
  const actionGate = new Promise<void>((r) => { releaseActions = r; });
  let actionsAnswered = 0;
  let ordersAnswered = 0;
  const fetch = async (url: string, init: RequestInit) => {
    const res = await api.app.handle(new Request(`http://localhost${url}`, init));
    if (opts.holdOrders && url === '/api/kds/orders') await gate;
    if (url === '/api/kds/orders') ordersAnswered++;
    if (opts.holdActions && init?.method === 'PUT') {
      await actionGate;
      actionsAnswered++;
    }
    return res;
  };
  const sockets: { onmessage: ((m: { data: string }) => void) | null }[] = [];
  class WebSocket {
    onmessage: ((m: { data: string }) => void) | null = null;
    onclose: unknown = null;
    constructor(public url: string) { sockets.push(this); }
    send() {}
    close() {}
  }
  new Function('document', 'localStorage', 'location', 'history', 'fetch', 'WebSocket', 'setInterval', SRC)(document, localStorage, location, { replaceState: () => {} }, fetch, WebSocket, () => 0);
  docListeners.DOMContentLoaded!();
  await until(() => sockets.length > 0);
  expect(sockets).toHaveLength(1);
  const deliver = (v: unknown) => sockets[0]!.onmessage!({ data: JSON.stringify(v) });
  deliver({ type: 'ready' });
  const cursor = Number((await tdb.selectFrom('kitchen_event_cursors').select('last_seq').where('location_id', '=', a.locations[0]!.id).executeTakeFirst())?.last_seq ?? 0);
  deliver({ type: 'subscribed', channel: 'kitchen', cursor }); // the page loads GET /kds/orders
  if (!opts.holdOrders) await until(() => ordersAnswered > 0);
  await settle();
  const shown = () => byId('tickets').children.map((c) => c.attrs['data-order-id']);
  const statusShown = (id: string) => byId('tickets').children.find((c) => c.attrs['data-order-id'] === id)?.attrs['data-status'];
  const click = (id: string, action: string) => {
    const t = byId('tickets').children.find((c) => c.attrs['data-order-id'] === id)!;
    const actions = t.children.find((c) => c.className === 'actions')!;
    (actions.children.find((b) => b.attrs['data-action'] === action) as unknown as { onclick: () => void }).onclick();
  };
  return { cursor, deliver, shown, statusShown, release, click, releaseActions, actionsAnswered: () => actionsAnswered };
}

async function ticket(orderNo: string, opts: { sourceId?: string; at?: Date } = {}): Promise<string> {
  const cat = await tdb.selectFrom('categories').select('id').orderBy('id').executeTakeFirstOrThrow();
  const [t] = await createKitchenTickets(tdb, {
    source: 'transaction',
    sourceId: opts.sourceId ?? crypto.randomUUID(),
    locationId: a.locations[0]!.id,
    orderNo,
    at: opts.at ?? new Date(),
    lines: [{ position: 0, item_id: a.items[0]!.id, category_id: cat.id, name: 'Burger', qty: 1, modifiers: [] }],
  });
  return t!.id;
}

const completeAll = () => tdb.updateTable('kitchen_tickets').set({ status: 'Complete', completed_at: new Date() }).where('status', '<>', 'Complete').execute();

beforeAll(async () => {
  api = await createTestApi();
  a = await api.seed('kds-screen-app');
  kds = await api.deviceToken(a, 'kds');
  tdb = bindTenant(api.deps.db, a.merchant.tenant_database);
});
afterAll(() => api.close());

describe('the kitchen screen (static/app.js)', () => {
  test('a `removed` event (order `{id}` only) drops the order from the screen', async () => {
    await completeAll();
    const sourceId = crypto.randomUUID();
    const id = await ticket('RM1', { sourceId });
    const keep = await ticket('RM2');
    const screen = await openScreen();
    expect(screen.shown()).toEqual([id, keep]);

    // The order is deleted on the server (as DELETE /back-office/transactions/{id} does) and its event published.
    const events = await tdb.transaction().execute((tx) => removeKitchenTickets(tx, 'transaction', sourceId));
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ action: 'removed', seq: screen.cursor + 1, order: { id } });
    expect(events[0]!.order).toEqual({ id } as never);
    screen.deliver(events[0]);
    await settle();
    expect(screen.shown()).toEqual([keep]);
  });

  test('a live event that arrives while GET /kds/orders is in flight is not undone by the older snapshot', async () => {
    await completeAll();
    const started = await ticket('RC1');
    const removedSource = crypto.randomUUID();
    const removed = await ticket('RC2', { sourceId: removedSource });
    const screen = await openScreen({ holdOrders: true }); // the snapshot is taken now, its answer held
    expect(screen.shown()).toEqual([]);

    // Meanwhile one order is started on another screen and another removed; their events reach this page first.
    expect((await api.call('PUT', `/api/kds/${started}/in-progress`, { token: kds, deviceKey: true })).status).toBe(200);
    const ev = await tdb.selectFrom('kitchen_events').select('payload').where('ticket_id', '=', started).where('action', '=', 'in-progress').executeTakeFirstOrThrow();
    expect((ev.payload as { seq: number }).seq).toBe(screen.cursor + 1);
    screen.deliver(ev.payload);
    const [gone] = await tdb.transaction().execute((tx) => removeKitchenTickets(tx, 'transaction', removedSource));
    screen.deliver(gone);
    await settle();
    expect(screen.shown()).toEqual([started]);
    expect(screen.statusShown(started)).toBe('In Progress');

    // The older snapshot (both orders queued) arrives now: the events stay applied.
    screen.release();
    await settle();
    expect(screen.shown()).toEqual([started]);
    expect(screen.statusShown(started)).toBe('In Progress');
  });

  test('an action\'s late answer does not undo a newer event: Ready tapped here, Complete on another screen first', async () => {
    await completeAll();
    const id = await ticket('LA1');
    const screen = await openScreen({ holdActions: true });
    expect(screen.shown()).toEqual([id]);
    // Ready is tapped here: the server makes it Ready at once, its answer is held on the way back.
    screen.click(id, 'ready');
    const statusOf = async () => (await tdb.selectFrom('kitchen_tickets').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
    for (let i = 0; i < 500 && (await statusOf()) !== 'Ready'; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await statusOf()).toBe('Ready');
    // Another screen completes it; both events reach this page before the Ready answer.
    expect((await api.call('PUT', `/api/kds/${id}/complete`, { token: kds, deviceKey: true })).status).toBe(200);
    const evs = await tdb.selectFrom('kitchen_events').select('payload').where('ticket_id', '=', id).orderBy('seq').execute();
    for (const e of evs) screen.deliver(e.payload);
    await settle();
    expect(screen.shown()).toEqual([]);
    // Before: the held answer (Ready) put the completed order back on the screen until a reload.
    screen.releaseActions();
    await until(() => screen.actionsAnswered() > 0);
    await settle();
    expect(screen.shown()).toEqual([]);
  });

  test('the screen orders tickets as the device\'s `sort` setting says, as GET /kds/orders does', async () => {
    await completeAll();
    const older = await ticket('OLD', { at: new Date(Date.now() - 10 * 60_000) });
    const newer = await ticket('NEW');
    expect((await api.call('PUT', `/api/kds/${newer}/prioritize`, { token: kds, deviceKey: true })).status).toBe(200);
    const listed = async () => (await api.call('GET', '/api/kds/orders', { token: kds, deviceKey: true })).body.data.map((o: { id: string }) => o.id);
    try {
      // Default `priority_first`: the prioritised (newer) order first.
      expect(await listed()).toEqual([newer, older]);
      expect((await openScreen()).shown()).toEqual([newer, older]);

      const set = await api.call('PUT', '/api/kds/settings', { token: kds, deviceKey: true, body: { sort: 'oldest_first' } });
      expect(set.body.data.settings.sort).toBe('oldest_first');
      expect(await listed()).toEqual([older, newer]);
      expect((await openScreen()).shown()).toEqual([older, newer]);
    } finally {
      await api.call('PUT', '/api/kds/settings', { token: kds, deviceKey: true, body: { sort: null } });
    }
  });
  test('bound to another station while open: the resync makes it read its binding again, show the new station\'s orders and take its events', async () => {
    await completeAll();
    const cats = await tdb.selectFrom('categories').select('id').orderBy('id').limit(2).execute();
    const bar = crypto.randomUUID();
    await tdb.insertInto('kitchen_stations').values({ id: bar, location_id: a.locations[0]!.id, name: 'Bar', category_ids: [cats[1]!.id], created_at: new Date(), updated_at: new Date() }).execute();
    const station = await tdb.selectFrom('kitchen_stations').select(['id', 'category_ids']).where('id', '=', a.kds.station_id).executeTakeFirstOrThrow();
    await tdb.updateTable('kitchen_stations').set({ category_ids: station.category_ids.filter((c) => c !== cats[1]!.id) }).where('id', '=', station.id).execute();
    const owner = await api.ownerToken(a);
    try {
      const kitchen = await ticket('ST1');
      const screen = await openScreen();
      expect(screen.shown()).toEqual([kitchen]);
      expect((await api.call('POST', `/api/back-office/devices/${a.kds.device_id}/station`, { token: owner, body: { station_id: bar } })).status).toBe(200);
      const [drink] = await createKitchenTickets(tdb, {
        source: 'transaction',
        sourceId: crypto.randomUUID(),
        locationId: a.locations[0]!.id,
        orderNo: 'ST2',
        at: new Date(),
        lines: [{ position: 0, item_id: a.items[0]!.id, category_id: cats[1]!.id, name: 'Cola', qty: 1, modifiers: [] }],
      });
      expect(drink!.event.station_id).toBe(bar);
      // The server's next check of the socket tells the screen to reload (realtime.test.ts).
      screen.deliver({ type: 'kitchen.resync', cursor: drink!.event.seq });
      await until(() => screen.shown().length === 1 && screen.shown()[0] === drink!.id);
      // Before: the old station's ticket stayed and the bar's was filtered out until the page was reloaded.
      expect(screen.shown()).toEqual([drink!.id]);
      const [later] = await createKitchenTickets(tdb, {
        source: 'transaction',
        sourceId: crypto.randomUUID(),
        locationId: a.locations[0]!.id,
        orderNo: 'ST3',
        at: new Date(),
        lines: [{ position: 0, item_id: a.items[0]!.id, category_id: cats[1]!.id, name: 'Tea', qty: 1, modifiers: [] }],
      });
      screen.deliver(later!.event);
      await settle();
      expect(screen.shown()).toEqual([drink!.id, later!.id]);
    } finally {
      expect((await api.call('POST', `/api/back-office/devices/${a.kds.device_id}/station`, { token: owner, body: { station_id: station.id } })).status).toBe(200);
      await tdb.updateTable('kitchen_stations').set({ category_ids: station.category_ids }).where('id', '=', station.id).execute();
      await completeAll();
      await tdb.deleteFrom('kitchen_stations').where('id', '=', bar).execute();
    }
  });
});
