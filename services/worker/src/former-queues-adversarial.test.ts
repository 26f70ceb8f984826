import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { createQueue, heartbeatJob, QUEUES, type JobEnvelope } from '@pos/kernel/queues/index';
import { startWorker, stopWorker, type RunningWorker } from './worker.ts';
import { findFormerQueues, queueOfJobsKey } from './former-queues.ts';
import { dropPrefix, openTestEnv, TEST_REDIS_URL, testWorkerDeps, uniquePrefix, waitFor, type TestEnv } from './test-support.ts';

/**
 * Jobs a relay of an older build wrote to a queue this build no longer uses for them: a queue since
 * renamed or retired (a "former queue"), or the queue a job has since moved away from. After the deploy
 * the new worker must run them, not leave them waiting forever nor fail them for good.
 */
let env: TestEnv;
const prefixes: string[] = [];
let worker: RunningWorker | undefined;
const services: string[] = [];

beforeAll(async () => {
  env = await openTestEnv();
});
afterEach(async () => {
  await stopWorker(worker);
  worker = undefined;
});
afterAll(async () => {
  for (const p of prefixes) await dropPrefix(env.redis, p);
  if (services.length) await env.handle.db.deleteFrom('heartbeats').where('service', 'in', services).execute();
  await env.close();
});

function prefix(): string {
  const p = uniquePrefix();
  prefixes.push(p);
  return p;
}

/** Writes a heartbeat job to `queue` as an older relay did: envelope, outbox-style id, retries. */
async function oldRelayWrites(pfx: string, queue: string): Promise<string> {
  const service = `former-${crypto.randomUUID()}`;
  services.push(service);
  const q = createQueue(queue, TEST_REDIS_URL, { prefix: pfx });
  try {
    await q.ready();
    const data: JobEnvelope = { job: heartbeatJob.name, version: heartbeatJob.version, payload: { service, at: new Date().toISOString() }, outbox_id: 1, enqueued_at: new Date().toISOString() };
    await q.createJob(data).setId(`outbox-${Math.floor(Math.random() * 1e9)}-${Date.now().toString(36)}`).timeout(60_000).retries(3).backoff('exponential', 1000).save();
  } finally {
    await q.close(1000);
  }
  return service;
}

const beat = (service: string) => env.handle.db.selectFrom('heartbeats').select(['service', 'info']).where('service', '=', service).executeTakeFirst();

describe('jobs left on a former queue after a deploy', () => {
  test('failed jobs alone on a retired queue are recorded and, past the retention, purged like those of a queue in use', async () => {
    const pfx = prefix();
    await env.redis.hset(`${pfx}:retired:jobs`, 'outbox-5-old', JSON.stringify({ data: { job: 'heartbeat', version: 1, payload: {}, outbox_id: 5 }, options: { stacktraces: ['Error: boom'] } }));
    await env.redis.sadd(`${pfx}:retired:failed`, 'outbox-5-old');
    worker = await startWorker({ ...testWorkerDeps(env, pfx), failedRetentionMs: 0, failedPurgeIntervalMs: 50, formerQueueScanMs: 100 });
    await waitFor(async () => (await env.redis.exists(`${pfx}:retired:failed`, `${pfx}:retired:jobs`)) === 0, 10_000, 'the retired queue purged');
    const rec = await env.handle.db.selectFrom('job_failures').select(['job', 'error']).where('prefix', '=', pfx).where('queue', '=', 'retired').execute();
    await env.handle.db.deleteFrom('job_failures').where('prefix', '=', pfx).execute();
    expect(rec).toEqual([{ job: 'heartbeat', error: 'Error: boom' }]);
    // No processor was started for it: nothing to run there.
    expect(worker.processors.map((p) => p.queueName)).not.toContain('retired');
  });

  test('a job waiting on a retired queue name is run by the new worker', async () => {
    const pfx = prefix();
    const service = await oldRelayWrites(pfx, 'housekeeping');
    worker = await startWorker({ ...testWorkerDeps(env, pfx) });
    const row = await waitFor(() => beat(service), 10_000, 'the heartbeat of the job on the former queue');
    expect(row.service).toBe(service);
    await waitFor(async () => (await env.redis.llen(`${pfx}:housekeeping:waiting`)) === 0 && (await env.redis.hlen(`${pfx}:housekeeping:jobs`)) === 0, 5000, 'former queue emptied');
    expect(await env.redis.scard(`${pfx}:housekeeping:failed`)).toBe(0);
  });

  test('a job written to a former queue while the new worker runs (an old relay still up) is run too', async () => {
    const pfx = prefix();
    worker = await startWorker({ ...testWorkerDeps(env, pfx), formerQueueScanMs: 100 });
    const service = await oldRelayWrites(pfx, 'payments-low');
    const row = await waitFor(() => beat(service), 10_000, 'the heartbeat of the job on the former queue');
    expect(row.service).toBe(service);
  });

  test('a job waiting on a queue in use that its definition no longer names (the job moved) runs instead of failing for good', async () => {
    const pfx = prefix();
    expect(heartbeatJob.queue).not.toBe(QUEUES.payments);
    const service = await oldRelayWrites(pfx, QUEUES.payments);
    worker = await startWorker({ ...testWorkerDeps(env, pfx) });
    const row = await waitFor(() => beat(service), 10_000, 'the heartbeat of the moved job');
    expect(row.service).toBe(service);
    expect(await env.redis.scard(`${pfx}:${QUEUES.payments}:failed`)).toBe(0);
  });

  test('former queues are the ones holding work that this build does not serve; failed jobs alone, done markers and other prefixes are not queues', async () => {
    const pfx = prefix();
    await env.redis.hset(`${pfx}:gone-empty:jobs`, 'x', '{}');
    await env.redis.sadd(`${pfx}:gone-empty:failed`, 'x');
    await env.redis.hset(`${pfx}:gone-delayed:jobs`, 'y', '{}');
    await env.redis.zadd(`${pfx}:gone-delayed:delayed`, Date.now() + 60_000, 'y');
    await env.redis.hset(`${pfx}:system:jobs`, 'z', '{}');
    await env.redis.rpush(`${pfx}:system:waiting`, 'z');
    expect(await findFormerQueues(env.redis, pfx, new Set(['system']))).toEqual({ withWork: ['gone-delayed'], failedOnly: ['gone-empty'] });
    expect(queueOfJobsKey('bq', 'bq:payments:done:outbox-1-jobs')).toBeUndefined();
    expect(queueOfJobsKey('bq', 'bqx:payments:jobs')).toBeUndefined();
    expect(queueOfJobsKey('bq', 'bq:payments:jobs')).toBe('payments');
  });
});
