import { afterAll, beforeAll, expect, test } from 'bun:test';
import Redis from 'ioredis';
import { MESSAGES } from '@pos/kernel';
import { PrivateRedis } from '@pos/kernel/private-redis';
import { publishKitchenEvent } from '@pos/core/payments/payment-events';
import type { DemoSeedResult } from '@pos/core/seed/demo-seed';
import { createTestApi, type TestApi } from '../../testing/harness.ts';
import { SUBSCRIBE_WAIT_MS } from '../../realtime/realtime-hub.ts';

/**
 * The hub's subscription survives Redis being away when the first socket opens: that socket is
 * refused, and once Redis is back the next socket receives events. Runs a private redis-server so the
 * shared one is never stopped; skipped when redis-server is not installed.
 */
const hasRedisServer = PrivateRedis.available;
let redisServer: PrivateRedis;
let api: TestApi;
let m: DemoSeedResult;
let base: string;

async function until(check: () => Promise<boolean> | boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}


/** The number of patterns the private Redis has subscribers for (the hub's `rt:*`). */
async function numpat(): Promise<number> {
  const r = new Redis(redisServer.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  r.on('error', () => {});
  try {
    await r.connect();
    return Number(await r.pubsub('NUMPAT'));
  } finally {
    r.disconnect();
  }
}

beforeAll(async () => {
  if (!hasRedisServer) return;
  redisServer = await PrivateRedis.create();
  await redisServer.start();
  api = await createTestApi({ env: { REDIS_URL: redisServer.url } });
  m = await api.seed('rtout');
  api.app.listen({ port: 0, hostname: '127.0.0.1' });
  base = `ws://127.0.0.1:${api.app.server!.port}/api/realtime`;
});

afterAll(async () => {
  if (!hasRedisServer) return;
  await api.app.stop(true);
  if (!redisServer.running) await redisServer.start();
  await api.close();
  await redisServer.stop();
});

/** A kds socket whose messages (and its close) are queued for `next()`. */
async function connectKds() {
  const ws = new WebSocket(base, { headers: { authorization: `Bearer ${await api.deviceToken(m, 'kds')}`, 'x-client-api-key': api.env.DEVICE_API_KEY } } as unknown as string[]);
  const inbox: any[] = [];
  const waiters: ((v: any) => void)[] = [];
  const push = (v: any) => {
    const w = waiters.shift();
    if (w) w(v);
    else inbox.push(v);
  };
  ws.onmessage = (e) => push(JSON.parse(String(e.data)));
  ws.onclose = (e) => push({ closed: e.code });
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
  return { next, send: (v: unknown) => ws.send(JSON.stringify(v)), close: () => ws.close() };
}

test.skipIf(!hasRedisServer)(
  'Redis down when the first socket opens: that socket is refused; once Redis is back a new socket receives events',
  async () => {
    await redisServer.stop();
    const first = await connectKds();
    expect(await first.next(SUBSCRIBE_WAIT_MS + 5000)).toEqual({ type: 'error', message: MESSAGES.unexpected });
    expect(await first.next()).toEqual({ closed: 4500 });

    await redisServer.start();
    // The subscription sent while Redis was away completes on its own once it is back.
    await until(async () => (await numpat()) === 1, 10_000, 'the hub to subscribe again');
    await until(() => api.deps.redis.status === 'ready', 10_000, 'the API connection');

    const second = await connectKds();
    expect(await second.next(SUBSCRIBE_WAIT_MS + 5000)).toEqual({ type: 'ready' });
    second.send({ action: 'subscribe', channel: 'kitchen' });
    expect(await second.next()).toEqual({ type: 'subscribed', channel: 'kitchen', cursor: expect.any(Number) });
    const event = { location_id: m.locations[0]!.id, transaction_id: crypto.randomUUID(), order_no: 3, items: [{ name: 'Soup', qty: 1 }] };
    await publishKitchenEvent(api.deps.redis, m.merchant.tenant_database, event, api.deps.log);
    expect(await second.next()).toEqual({ type: 'kitchen.order', ...event });
    expect(await numpat()).toBe(1);
    second.close();
    first.close();
  },
  40_000,
);
