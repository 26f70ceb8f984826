/**
 * The outbox promise (DESIGN 2): work written while Redis is away is relayed once it is back, even
 * after a restart that emptied Redis (and its script cache). Runs a private redis-server so the
 * shared one is never stopped; skipped when redis-server is not installed.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import net from 'node:net';
import type Redis from 'ioredis';
import { createRedis } from '@pos/kernel';
import { heartbeatJob, jobMessage } from '@pos/kernel/queues/index';
import { enqueueOutbox } from '@pos/db';
import { startWorker, type RunningWorker } from './worker.ts';
import { openTestEnv, testFiscal, uniquePrefix, waitFor, type TestEnv } from './test-support.ts';

const hasRedisServer = Bun.which('redis-server') !== null;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

let env: TestEnv;
let port = 0;
let server: Bun.Subprocess | undefined;

async function startRedisServer(): Promise<void> {
  server = Bun.spawn(['redis-server', '--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdout: 'ignore', stderr: 'ignore' });
  await waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        const s = net.connect({ host: '127.0.0.1', port }, () => (s.end(), resolve(true)));
        s.on('error', () => resolve(false));
      }),
    5000,
    'private redis-server',
  );
}

async function stopRedisServer(): Promise<void> {
  server?.kill('SIGKILL');
  await server?.exited;
  server = undefined;
}

beforeAll(async () => {
  if (!hasRedisServer) return;
  env = await openTestEnv();
  port = await freePort();
  await startRedisServer();
});

afterAll(async () => {
  if (!hasRedisServer) return;
  await stopRedisServer();
  await env.close();
});

const beat = (service: string) => jobMessage(heartbeatJob, { service, at: new Date().toISOString() });
const heartbeatOf = (service: string) => env.handle.db.selectFrom('heartbeats').select('service').where('service', '=', service).executeTakeFirst();

test.skipIf(!hasRedisServer)(
  'rows written while Redis is down stay pending, then are relayed and processed after a restart',
  async () => {
    const url = `redis://127.0.0.1:${port}`;
    const redis: Redis = createRedis(url, 'outage-test');
    redis.on('error', () => {});
    let worker: RunningWorker | undefined;
    try {
      worker = await startWorker({ db: env.handle.db, redis, redisUrl: url, log: env.log, prefix: uniquePrefix(), heartbeatMs: 3_600_000, fiscal: testFiscal(env.log), fiscalRecoverMs: 0, relayIntervalMs: 50 });
      const before = `outage-before-${crypto.randomUUID()}`;
      await enqueueOutbox(env.handle.db, beat(before));
      worker.relay.trigger();
      await waitFor(() => heartbeatOf(before), 5000, 'heartbeat before the outage');

      await stopRedisServer();
      const during = `outage-during-${crypto.randomUUID()}`;
      await enqueueOutbox(env.handle.db, beat(during));
      worker.relay.trigger();
      const pending = await waitFor(
        () =>
          env.handle.db
            .selectFrom('outbox')
            .select(['relayed_at', 'attempts'])
            .where('payload', '@>', JSON.stringify({ service: during }) as never)
            .where('attempts', '>=', 1)
            .executeTakeFirst(),
        10_000,
        'a failed relay attempt',
      );
      expect(pending.relayed_at).toBeNull();
      expect(await heartbeatOf(during)).toBeUndefined();

      // Back, empty: no jobs, no scripts.
      await startRedisServer();
      await waitFor(() => heartbeatOf(during), 20_000, 'heartbeat after the restart');
      // The worker's own connections recovered too: a job through the same processors.
      const after = `outage-after-${crypto.randomUUID()}`;
      await enqueueOutbox(env.handle.db, beat(after));
      worker.relay.trigger();
      await waitFor(() => heartbeatOf(after), 10_000, 'heartbeat after recovery');
      // bee-queue's Lua scripts are in Redis again (a restart empties its script cache): no NOSCRIPT.
      for (const p of worker.processors) expect(await p.queue.checkStalledJobs()).toBe(0);
    } finally {
      await worker?.stop();
      redis.disconnect();
    }
  },
  45_000,
);
