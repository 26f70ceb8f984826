/**
 * The outbox promise (DESIGN 2): work written while Redis is away is relayed once it is back, even
 * after a restart that emptied Redis (and its script cache). Runs a private redis-server so the
 * shared one is never stopped; skipped when redis-server is not installed.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type Redis from 'ioredis';
import { createRedis } from '@pos/kernel';
import { PrivateRedis } from '@pos/kernel/private-redis';
import { heartbeatJob, jobMessage } from '@pos/kernel/queues/index';
import { enqueueOutbox } from '@pos/db';
import { startWorker, type RunningWorker } from './worker.ts';
import { openTestEnv, testFiscal, uniquePrefix, waitFor, type TestEnv } from './test-support.ts';

const hasRedisServer = PrivateRedis.available;
let redisServer: PrivateRedis;

let env: TestEnv;


beforeAll(async () => {
  if (!hasRedisServer) return;
  env = await openTestEnv();
  redisServer = await PrivateRedis.create();
  await redisServer.start();
});

afterAll(async () => {
  if (!hasRedisServer) return;
  await redisServer.stop();
  await env.close();
});

const beat = (service: string) => jobMessage(heartbeatJob, { service, at: new Date().toISOString() });
const heartbeatOf = (service: string) => env.handle.db.selectFrom('heartbeats').select('service').where('service', '=', service).executeTakeFirst();

test.skipIf(!hasRedisServer)(
  'rows written while Redis is down stay pending, then are relayed and processed after a restart',
  async () => {
    const url = redisServer.url;
    const redis: Redis = createRedis(url, 'outage-test');
    redis.on('error', () => {});
    let worker: RunningWorker | undefined;
    try {
      worker = await startWorker({ db: env.handle.db, redis, redisUrl: url, log: env.log, prefix: uniquePrefix(), heartbeatMs: 3_600_000, fiscal: testFiscal(env.log), fiscalRecoverMs: 0, relayIntervalMs: 50 });
      const before = `outage-before-${crypto.randomUUID()}`;
      await enqueueOutbox(env.handle.db, beat(before));
      worker.relay.trigger();
      await waitFor(() => heartbeatOf(before), 5000, 'heartbeat before the outage');

      await redisServer.stop();
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
      await redisServer.start();
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
