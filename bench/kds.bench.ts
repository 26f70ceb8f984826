/**
 * The kitchen display's live path (issue 14), against the API as its own process:
 * - capture-to-screen: from a register fire (`POST /pos/orders/{id}/fire` over HTTP) and from a
 *   capture's kitchen tickets (what the worker's PaymentCaptured listener does: tickets and their
 *   numbered events in one commit, then the publish) until the event arrives on a KDS WebSocket
 *   connected to the API; p50/p99 (goal p99 under 150 ms), beside the raw Redis pub/sub round trip
 *   measured in the same run;
 * - fan-out: SCREENS KDS sockets subscribed to the kitchen, EVENTS kitchen events published on the
 *   tenant's channel; events delivered per second across all sockets, beside a bare Bun WebSocket
 *   server relaying the same channel to the same number of sockets.
 *
 * Env: BENCH_KDS_SCREENS (500), BENCH_KDS_EVENTS (100), BENCH_KDS_SAMPLES (150 per path),
 * BENCH_KDS_PORT (3590; the bare server uses +1), BENCH_DATABASE.
 */
import { join } from 'node:path';
import { bindTenant, createDatabase, migrateAll } from '@pos/db';
import { createLogger, createRedis, ensureRedis } from '@pos/kernel';
import { createTokenService } from '../services/api/src/plugins/tokens.ts';
import { seedDemo } from '@pos/core/seed/demo-seed';
import { createKitchenTickets } from '@pos/core/kitchen/tickets';
import { kitchenChannel } from '@pos/core/payments/payment-events';
import { latestKitchenSeq, publishKitchenEvents } from '@pos/core/kitchen/kitchen-events';
import { freshBenchDatabase } from './bench-database.ts';
import { BENCH_SECRETS, startBenchApi } from './bench-api.ts';
import { fmt, percentile } from './stats.ts';

const SCREENS = Number(process.env.BENCH_KDS_SCREENS ?? 500);
const EVENTS = Number(process.env.BENCH_KDS_EVENTS ?? 100);
const SAMPLES = Number(process.env.BENCH_KDS_SAMPLES ?? 150);
const PORT = Number(process.env.BENCH_KDS_PORT ?? 3590);
const root = join(import.meta.dir, '..');

type Socket = { ws: WebSocket; onEvent: (e: any) => void; ready: Promise<void> };

/** A socket that resolves `ready` once it is subscribed (API) or open (bare); events go to onEvent. */
function openSocket(url: string, headers: Record<string, string> | undefined, subscribe: boolean): Socket {
  const ws = new WebSocket(url, (headers ? { headers } : undefined) as unknown as string[]);
  const s: Socket = { ws, onEvent: () => {}, ready: Promise.resolve() };
  s.ready = new Promise((resolve, reject) => {
    ws.onerror = () => reject(new Error(`socket error ${url}`));
    ws.onmessage = (m) => {
      const e = JSON.parse(String(m.data));
      if (e.type === 'ready') {
        if (!subscribe) return resolve();
        ws.send(JSON.stringify({ action: 'subscribe', channel: 'kitchen' }));
      } else if (e.type === 'subscribed') resolve();
      else s.onEvent(e);
    };
  });
  return s;
}

async function openMany(n: number, make: () => Socket): Promise<Socket[]> {
  const out: Socket[] = [];
  // In batches: 500 upgrades at once would mostly measure the connection storm.
  for (let i = 0; i < n; i += 50) {
    const batch = Array.from({ length: Math.min(50, n - i) }, make);
    await Promise.all(batch.map((b) => b.ready));
    out.push(...batch);
  }
  return out;
}

/** Delivers `events` messages (from `publish`) to every socket; answers deliveries per second. */
async function fanOut(sockets: Socket[], events: number, publish: (i: number) => Promise<void>): Promise<{ rate: number; delivered: number; seconds: number }> {
  const expected = sockets.length * events;
  let delivered = 0;
  let done: () => void = () => {};
  const all = new Promise<void>((r) => (done = r));
  for (const s of sockets) {
    s.onEvent = () => {
      if (++delivered === expected) done();
    };
  }
  const t0 = performance.now();
  for (let i = 0; i < events; i++) await publish(i);
  await Promise.race([all, Bun.sleep(60_000)]);
  const seconds = (performance.now() - t0) / 1000;
  return { rate: delivered / seconds, delivered, seconds };
}

export async function runKdsBench(): Promise<void> {
  const bench = await freshBenchDatabase(root, '_kds');
  const h = createDatabase(bench.url, { max: 6, applicationName: 'bench-kds' });
  await migrateAll(h.db);
  const seed = await seedDemo(h.db, { slug: 'bench-kds', reset: true, apiKey: BENCH_SECRETS.DEVICE_API_KEY, pinPepper: BENCH_SECRETS.PIN_PEPPER });
  const tdb = bindTenant(h.db, seed.merchant.tenant_database);
  const tenant = seed.merchant.tenant_database;
  const location = seed.locations[0]!.id;
  const redisUrl = await ensureRedis(process.env.REDIS_URL);
  const redis = createRedis(redisUrl, 'bench-kds');
  const log = createLogger({ service: 'bench' }, 'error');
  const api = await startBenchApi(root, { port: PORT, databaseUrl: bench.url, env: { REDIS_URL: redisUrl } });
  const bare = Bun.spawn(['bun', 'bench/kds-bare-ws.ts', String(PORT + 1), redisUrl, `bench-bare:${tenant}`], { cwd: root, stdout: 'pipe', stderr: 'inherit' });
  const url = (p: string) => `http://127.0.0.1:${PORT}/api${p}`;
  const sockets: Socket[] = [];
  try {
    const tokens = createTokenService(BENCH_SECRETS.JWT_SECRET);
    const sign = async (type: 'pos' | 'kds') => {
      const d = seed.devices.find((x) => x.type === type)!;
      const reg = await h.db.selectFrom('device_registry').select('token_version').where('id', '=', d.id).executeTakeFirstOrThrow();
      return tokens.sign({ type, sub: d.id, merchant_id: seed.merchant.id, tenant_database: tenant, ver: reg.token_version });
    };
    const kdsHeaders = { authorization: `Bearer ${await sign('kds')}`, 'x-client-api-key': BENCH_SECRETS.DEVICE_API_KEY };
    const posHeaders = { authorization: `Bearer ${await sign('pos')}`, 'x-client-api-key': BENCH_SECRETS.DEVICE_API_KEY, 'content-type': 'application/json' };
    const pin = seed.staff.find((s) => s.role === 'manager')!.pin;
    const login = await fetch(url('/pos/staff/pin-login'), { method: 'POST', headers: posHeaders, body: JSON.stringify({ pin }) });
    if (login.status !== 200) throw new Error(`pin-login ${login.status} ${await login.text()}`);
    const staff = { ...posHeaders, 'x-pos-staff-token': ((await login.json()) as { staff_token: string }).staff_token };
    const wsUrl = `ws://127.0.0.1:${PORT}/api/realtime`;

    // --- baseline: the raw Redis pub/sub round trip (publish -> a subscriber in this process).
    const sub = redis.duplicate();
    const waiting = new Map<string, () => void>();
    sub.on('message', (_c, m) => waiting.get(m)?.());
    await sub.subscribe('bench-kds-rtt');
    const rtt: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const msg = `m${i}`;
      const got = new Promise<void>((r) => waiting.set(msg, r));
      const t0 = performance.now();
      await redis.publish('bench-kds-rtt', msg);
      await got;
      rtt.push(performance.now() - t0);
    }
    sub.disconnect();

    // --- capture/fire -> screen on one connected KDS socket.
    const screen = openSocket(wsUrl, kdsHeaders, true);
    await screen.ready;
    sockets.push(screen);
    const arrival = (match: (e: any) => boolean) =>
      new Promise<number>((resolve) => {
        screen.onEvent = (e) => {
          if (e.type === 'kitchen.ticket' && match(e)) resolve(performance.now());
        };
      });
    const item = seed.items[0]!;
    const fire: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const orderId = crypto.randomUUID();
      const put = await fetch(url(`/pos/orders/${orderId}`), {
        method: 'PUT',
        headers: staff,
        body: JSON.stringify({ lines: [{ uuid: crypto.randomUUID(), item_id: item.id, qty: 1, unit_price: item.unit_price, price_source: 'catalog', modifiers: [] }] }),
      });
      if (put.status !== 200) throw new Error(`order ${put.status} ${await put.text()}`);
      const orderNo = orderId.slice(-4).toUpperCase();
      const got = arrival((e) => e.action === 'created' && e.order.order_no === orderNo);
      const t0 = performance.now();
      const r = await fetch(url(`/pos/orders/${orderId}/fire`), { method: 'POST', headers: staff, body: '{}' });
      if (r.status !== 200) throw new Error(`fire ${r.status} ${await r.text()}`);
      fire.push((await got) - t0);
    }
    const cat = await tdb.selectFrom('categories').select('id').orderBy('id').executeTakeFirstOrThrow();
    const capture: number[] = [];
    for (let i = 0; i < SAMPLES; i++) {
      const sourceId = crypto.randomUUID();
      const orderNo = `C${i}`;
      const got = arrival((e) => e.action === 'created' && e.order.order_no === orderNo);
      const t0 = performance.now();
      const created = await tdb.transaction().execute((tx) =>
        createKitchenTickets(tx, { source: 'transaction', sourceId, locationId: location, orderNo, at: new Date(), lines: [{ position: 0, item_id: item.id, category_id: cat.id, name: item.name, qty: 1, modifiers: [] }] }),
      );
      await publishKitchenEvents(redis, tenant, created.map((c) => c.event), log);
      capture.push((await got) - t0);
    }

    // --- fan-out at SCREENS sockets: the API's hub against a bare Bun server on the same channel.
    sockets.push(...(await openMany(SCREENS - 1, () => openSocket(wsUrl, kdsHeaders, true))));
    const floor = await latestKitchenSeq(tdb, location);
    const event = (i: number) =>
      JSON.stringify({ type: 'kitchen.ticket', seq: floor + 1000 + i, action: 'prioritize', location_id: location, station_id: seed.kds.station_id, order: { id: crypto.randomUUID(), order_no: `F${i}`, status: 'Queued', items: [{ name: item.name, qty: 1 }] } });
    const apiFan = await fanOut(sockets, EVENTS, (i) => redis.publish(kitchenChannel(tenant), event(i)).then(() => {}));
    for (const s of sockets.splice(0)) s.ws.close();
    const reader = bare.stdout.getReader();
    await reader.read(); // "ready"
    const bareSockets = await openMany(SCREENS, () => openSocket(`ws://127.0.0.1:${PORT + 1}/`, undefined, false));
    const bareFan = await fanOut(bareSockets, EVENTS, (i) => redis.publish(`bench-bare:${tenant}`, event(i)).then(() => {}));
    for (const s of bareSockets) s.ws.close();

    const sorted = (x: number[]) => [...x].sort((a, b) => a - b);
    const [f, c, r] = [sorted(fire), sorted(capture), sorted(rtt)];
    console.log(`kds: capture-to-screen on a connected KDS WebSocket (${SAMPLES} each, one at a time)`);
    console.log(`  register fire (HTTP) -> screen     p50 ${fmt(percentile(f, 50))} ms   p99 ${fmt(percentile(f, 99))} ms   (goal p99 < 150 ms)`);
    console.log(`  capture tickets (commit) -> screen p50 ${fmt(percentile(c, 50))} ms   p99 ${fmt(percentile(c, 99))} ms   (goal p99 < 150 ms)`);
    console.log(`  baseline Redis pub/sub round trip  p50 ${fmt(percentile(r, 50), 2)} ms   p99 ${fmt(percentile(r, 99), 2)} ms`);
    console.log(`  ratio p99 fire : Redis round trip = ${fmt(percentile(f, 99) / percentile(r, 99))}   capture : Redis = ${fmt(percentile(c, 99) / percentile(r, 99))}`);
    console.log(`kds: fan-out of ${EVENTS} kitchen events to ${SCREENS} connected screens`);
    console.log(`  API real-time hub   ${fmt(apiFan.rate, 0)} events delivered/s   (${apiFan.delivered}/${SCREENS * EVENTS} in ${fmt(apiFan.seconds, 2)} s)`);
    console.log(`  bare Bun WebSocket  ${fmt(bareFan.rate, 0)} events delivered/s   (${bareFan.delivered}/${SCREENS * EVENTS} in ${fmt(bareFan.seconds, 2)} s)   (baseline)`);
    console.log(`  ratio API : bare = ${fmt(apiFan.rate / bareFan.rate, 3)}`);
  } finally {
    for (const s of sockets) s.ws.close();
    api.kill('SIGTERM');
    bare.kill('SIGTERM');
    await Promise.all([api.exited, bare.exited]);
    redis.disconnect();
    await h.close();
    await bench.stop();
  }
}
