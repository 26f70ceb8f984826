import { describe, expect, test } from 'bun:test';
import { createQueue, heartbeatJob, QUEUES, type JobEnvelope } from '@pos/kernel/queues/index';
import { startWorker } from './worker.ts';
import { workerTestbed } from './worker-testbed.ts';
import { findFormerQueues, queueOfJobsKey } from './former-queues.ts';
import { TEST_REDIS_URL, testWorkerDeps, waitFor } from './test-support.ts';

/**
 * Jobs a relay of an older build wrote to a queue this build no longer uses for them: a queue since
 * renamed or retired (a "former queue"), or the queue a job has since moved away from. After the deploy
 * the new worker must run them, not leave them waiting forever nor fail them for good.
 */
const services: string[] = [];
const bed = workerTestbed((env) => (services.length ? env.handle.db.deleteFrom('heartbeats').where('service', 'in', services).execute() : Promise.resolve()));
const prefix = () => bed.prefix();

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

const beat = (service: string) => bed.env.handle.db.selectFrom('heartbeats').select(['service', 'info']).where('service', '=', service).executeTakeFirst();

describe('jobs left on a former queue after a deploy', () => {
  test('failed jobs alone on a retired queue are recorded and, past the retention, purged like those of a queue in use', async () => {
    const pfx = prefix();
    await bed.env.redis.hset(`${pfx}:retired:jobs`, 'outbox-5-old', JSON.stringify({ data: { job: 'heartbeat', version: 1, payload: {}, outbox_id: 5 }, options: { stacktraces: ['Error: boom'] } }));
    await bed.env.redis.sadd(`${pfx}:retired:failed`, 'outbox-5-old');
    bed.worker = await startWorker({ ...testWorkerDeps(bed.env, pfx), failedRetentionMs: 0, failedPurgeIntervalMs: 50, formerQueueScanMs: 100 });
    await waitFor(async () => (await bed.env.redis.exists(`${pfx}:retired:failed`, `${pfx}:retired:jobs`)) === 0, 10_000, 'the retired queue purged');
    const rec = await bed.env.handle.db.selectFrom('job_failures').select(['job', 'error']).where('prefix', '=', pfx).where('queue', '=', 'retired').execute();
    await bed.env.handle.db.deleteFrom('job_failures').where('prefix', '=', pfx).execute();
    expect(rec).toEqual([{ job: 'heartbeat', error: 'Error: boom' }]);
    // No processor was started for it: nothing to run there.
    expect(bed.worker.processors.map((p) => p.queueName)).not.toContain('retired');
  });

  test('a job waiting on a retired queue name is run by the new worker', async () => {
    const pfx = prefix();
    const service = await oldRelayWrites(pfx, 'housekeeping');
    bed.worker = await startWorker({ ...testWorkerDeps(bed.env, pfx) });
    const row = await waitFor(() => beat(service), 10_000, 'the heartbeat of the job on the former queue');
    expect(row.service).toBe(service);
    await waitFor(async () => (await bed.env.redis.llen(`${pfx}:housekeeping:waiting`)) === 0 && (await bed.env.redis.hlen(`${pfx}:housekeeping:jobs`)) === 0, 5000, 'former queue emptied');
    expect(await bed.env.redis.scard(`${pfx}:housekeeping:failed`)).toBe(0);
  });

  test('a job written to a former queue while the new worker runs (an old relay still up) is run too', async () => {
    const pfx = prefix();
    bed.worker = await startWorker({ ...testWorkerDeps(bed.env, pfx), formerQueueScanMs: 100 });
    const service = await oldRelayWrites(pfx, 'payments-low');
    const row = await waitFor(() => beat(service), 10_000, 'the heartbeat of the job on the former queue');
    expect(row.service).toBe(service);
  });

  test('a job waiting on a queue in use that its definition no longer names (the job moved) runs instead of failing for good', async () => {
    const pfx = prefix();
    expect(heartbeatJob.queue).not.toBe(QUEUES.payments);
    const service = await oldRelayWrites(pfx, QUEUES.payments);
    bed.worker = await startWorker({ ...testWorkerDeps(bed.env, pfx) });
    const row = await waitFor(() => beat(service), 10_000, 'the heartbeat of the moved job');
    expect(row.service).toBe(service);
    expect(await bed.env.redis.scard(`${pfx}:${QUEUES.payments}:failed`)).toBe(0);
  });

  test('former queues are the ones holding work that this build does not serve; failed jobs alone, done markers and other prefixes are not queues', async () => {
    const pfx = prefix();
    await bed.env.redis.hset(`${pfx}:gone-empty:jobs`, 'x', '{}');
    await bed.env.redis.sadd(`${pfx}:gone-empty:failed`, 'x');
    await bed.env.redis.hset(`${pfx}:gone-delayed:jobs`, 'y', '{}');
    await bed.env.redis.zadd(`${pfx}:gone-delayed:delayed`, Date.now() + 60_000, 'y');
    await bed.env.redis.hset(`${pfx}:system:jobs`, 'z', '{}');
    await bed.env.redis.rpush(`${pfx}:system:waiting`, 'z');
    expect(await findFormerQueues(bed.env.redis, pfx, new Set(['system']))).toEqual({ withWork: ['gone-delayed'], failedOnly: ['gone-empty'] });
    expect(queueOfJobsKey('bq', 'bq:payments:done:outbox-1-jobs')).toBeUndefined();
    expect(queueOfJobsKey('bq', 'bqx:payments:jobs')).toBeUndefined();
    expect(queueOfJobsKey('bq', 'bq:payments:jobs')).toBe('payments');
  });
});
