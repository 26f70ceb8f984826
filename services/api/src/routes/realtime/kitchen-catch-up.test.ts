import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant } from '@pos/db';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createKitchenTickets, createKitchenTicketsMany } from '@pos/core/kitchen/tickets';
import { publishKitchenEvents } from '@pos/core/kitchen/kitchen-events';
import { createTestApi, type TestApi } from '../../testing/harness.ts';

/**
 * Live kitchen screens (issue 14 item 3): a register fire reaches a KDS socket connected to another API
 * process; a screen that reconnects with its cursor receives exactly the events it missed, once each,
 * even while new ones are being produced.
 */
let api1: TestApi;
let api2: TestApi;
let m: DemoSeedResult;
let base: string;
let kdsToken: string;

beforeAll(async () => {
  api1 = await createTestApi();
  api2 = await createTestApi();
  m = await api1.seed('kcu');
  kdsToken = await api1.deviceToken(m, 'kds');
  api2.app.listen({ port: 0, hostname: '127.0.0.1' });
  base = `ws://127.0.0.1:${api2.app.server!.port}/api/realtime`;
});
afterAll(async () => {
  await api2.app.stop(true);
  await api2.close();
  await api1.close();
});

function connect() {
  const ws = new WebSocket(base, { headers: { authorization: `Bearer ${kdsToken}`, 'x-client-api-key': api1.env.DEVICE_API_KEY } } as unknown as string[]);
  const inbox: any[] = [];
  const waiters: ((v: any) => void)[] = [];
  ws.onmessage = (e) => {
    const v = JSON.parse(String(e.data));
    const w = waiters.shift();
    if (w) w(v);
    else inbox.push(v);
  };
  const next = (ms = 3000): Promise<any> =>
    inbox.length
      ? Promise.resolve(inbox.shift())
      : new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('no message')), ms);
          waiters.push((v) => {
            clearTimeout(timer);
            resolve(v);
          });
        });
  return { ws, next, send: (v: unknown) => ws.send(JSON.stringify(v)), drain: () => inbox.splice(0), close: () => ws.close() };
}

const kds = (method: string, path: string, body?: unknown) => api1.call(method, path, { token: kdsToken, deviceKey: true, body });

/** A captured order's ticket, written and published as the worker's listener does. */
async function newTicket(orderNo: string): Promise<string> {
  const tdb = bindTenant(api1.deps.db, m.merchant.tenant_database);
  const cat = await tdb.selectFrom('categories').select('id').orderBy('id').executeTakeFirstOrThrow();
  const created = await tdb.transaction().execute((tx) =>
    createKitchenTickets(tx, {
      source: 'transaction',
      sourceId: crypto.randomUUID(),
      locationId: m.locations[0]!.id,
      orderNo,
      at: new Date(),
      lines: [{ position: 0, item_id: m.items[0]!.id, category_id: cat.id, name: 'Soup', qty: 1, modifiers: [] }],
    }),
  );
  await publishKitchenEvents(api1.deps.redis, m.merchant.tenant_database, created.map((c) => c.event), api1.deps.log);
  return created[0]!.id;
}

describe('kitchen events on the real-time channel', () => {
  test('a register fire reaches a connected screen on another API process', async () => {
    const screen = connect();
    expect(await screen.next()).toEqual({ type: 'ready' });
    screen.send({ action: 'subscribe', channel: 'kitchen' });
    const sub = await screen.next();
    expect(sub).toEqual({ type: 'subscribed', channel: 'kitchen', cursor: expect.any(Number) });
    const pos = await api1.deviceToken(m, 'pos');
    const staff = await api1.staffLogin(m, 'manager', pos);
    const orderId = crypto.randomUUID();
    const item = m.items[0]!;
    const put = await api1.call('PUT', `/api/pos/orders/${orderId}`, {
      token: pos,
      deviceKey: true,
      staffToken: staff,
      body: { lines: [{ uuid: crypto.randomUUID(), item_id: item.id, qty: 2, unit_price: item.unit_price, price_source: 'catalog', modifiers: [] }] },
    });
    expect(put.status).toBe(200);
    expect((await api1.call('POST', `/api/pos/orders/${orderId}/fire`, { token: pos, deviceKey: true, staffToken: staff, body: {} })).status).toBe(200);
    const ev = await screen.next();
    expect(ev).toMatchObject({ type: 'kitchen.ticket', action: 'created', seq: sub.cursor + 1, location_id: m.locations[0]!.id, station_id: m.kds.station_id, order: { status: 'Queued', order_no: orderId.slice(-4).toUpperCase(), items: [{ name: item.name, qty: 2 }] } });
    screen.close();
  });

  test('a batch of events published as one message reaches the screen as one message per event, in order', async () => {
    const screen = connect();
    await screen.next();
    screen.send({ action: 'subscribe', channel: 'kitchen' });
    const { cursor } = await screen.next();
    const tdb = bindTenant(api1.deps.db, m.merchant.tenant_database);
    const cat = await tdb.selectFrom('categories').select('id').orderBy('id').executeTakeFirstOrThrow();
    const created = await createKitchenTicketsMany(
      tdb,
      Array.from({ length: 5 }, (_, i) => ({
        source: 'transaction' as const,
        sourceId: crypto.randomUUID(),
        locationId: m.locations[0]!.id,
        orderNo: `B${i}`,
        at: new Date(),
        lines: [{ position: 0, item_id: m.items[0]!.id, category_id: cat.id, name: 'Soup', qty: 1, modifiers: [] }],
      })),
    );
    await publishKitchenEvents(api1.deps.redis, m.merchant.tenant_database, created.map((c) => c.event), api1.deps.log);
    const got = [];
    for (let i = 0; i < 5; i++) got.push(await screen.next());
    expect(got).toEqual(JSON.parse(JSON.stringify(created.map((c) => c.event))));
    expect(got.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5].map((k) => cursor + k));
    await Bun.sleep(100);
    expect(screen.drain()).toEqual([]);
    screen.close();
  });

  test('reconnecting with the cursor replays exactly the missed events, then live ones, none twice', async () => {
    const first = connect();
    await first.next();
    first.send({ action: 'subscribe', channel: 'kitchen' });
    const { cursor: start } = await first.next();
    const a = await newTicket('A1');
    const seen = await first.next();
    expect(seen).toMatchObject({ seq: start + 1, action: 'created', order: { id: a } });
    first.close();
    await Bun.sleep(50);

    // Offline: three changes.
    await kds('PUT', `/api/kds/${a}/in-progress`);
    const b = await newTicket('B2');
    await kds('PUT', `/api/kds/mark-item`, { order_id: b, position: 0, status: 'In Progress' });

    const again = connect();
    await again.next();
    again.send({ action: 'subscribe', channel: 'kitchen', cursor: seen.seq });
    expect(await again.next()).toEqual({ type: 'subscribed', channel: 'kitchen', cursor: start + 4, replayed: 3 });
    const replay = [await again.next(), await again.next(), await again.next()];
    expect(replay.map((e) => [e.seq, e.action, e.order.id])).toEqual([
      [start + 2, 'in-progress', a],
      [start + 3, 'created', b],
      [start + 4, 'mark-item', b],
    ]);
    // Then live.
    await kds('PUT', `/api/kds/${a}/ready`);
    expect(await again.next()).toMatchObject({ seq: start + 5, action: 'ready', order: { id: a, status: 'Ready' } });
    await Bun.sleep(100);
    expect(again.drain()).toEqual([]);
    again.close();
  });

  test('a reconnect while events are being produced gets every number once', async () => {
    const probe = connect();
    await probe.next();
    probe.send({ action: 'subscribe', channel: 'kitchen' });
    const { cursor: start } = await probe.next();
    probe.close();
    const producing = (async () => {
      for (let i = 0; i < 12; i++) await newTicket(`C${i}`);
    })();
    await Bun.sleep(5);
    const screen = connect();
    await screen.next();
    screen.send({ action: 'subscribe', channel: 'kitchen', cursor: start });
    const sub = await screen.next();
    expect(sub.type).toBe('subscribed');
    await producing;
    const seqs: number[] = [];
    while (seqs.length < 12) seqs.push((await screen.next()).seq);
    await Bun.sleep(100);
    expect(screen.drain()).toEqual([]);
    expect(seqs.sort((x, y) => x - y)).toEqual(Array.from({ length: 12 }, (_, i) => start + 1 + i));
    screen.close();
  });

  test('a cursor older than the kept events, or ahead of the location, asks the screen to reload', async () => {
    await newTicket('D1');
    const tdb = bindTenant(api1.deps.db, m.merchant.tenant_database);
    const oldest = await tdb.selectFrom('kitchen_events').select('seq').where('location_id', '=', m.locations[0]!.id).orderBy('seq').executeTakeFirstOrThrow();
    await tdb.deleteFrom('kitchen_events').where('location_id', '=', m.locations[0]!.id).where('seq', '=', oldest.seq).execute();
    const screen = connect();
    await screen.next();
    screen.send({ action: 'subscribe', channel: 'kitchen', cursor: Number(oldest.seq) - 1 });
    const r = await screen.next();
    expect(r).toEqual({ type: 'kitchen.resync', cursor: expect.any(Number) });
    screen.send({ action: 'subscribe', channel: 'kitchen', cursor: r.cursor + 100 });
    expect(await screen.next()).toEqual({ type: 'kitchen.resync', cursor: r.cursor });
    screen.send({ action: 'subscribe', channel: 'kitchen', cursor: -1 });
    expect(await screen.next()).toEqual({ type: 'error', message: 'The cursor must be a whole number from 0.' });
    screen.send({ action: 'subscribe', channel: 'payments', cursor: 1 });
    expect(await screen.next()).toEqual({ type: 'error', message: 'The cursor field is only for the kitchen channel.' });
    screen.close();
  });
});
