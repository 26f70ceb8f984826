import { describe, expect, test } from 'bun:test';
import { createQueue, heartbeatJob, type JobEnvelope } from '@pos/kernel/queues/index';
import type { JobHandler } from './jobs/job-handler.ts';
import { startWorker, type RunningWorker } from './worker.ts';
import { workerTestbed } from './worker-testbed.ts';
import { TEST_REDIS_URL, testWorkerDeps, waitFor } from './test-support.ts';

/**
 * Failed bee-queue jobs were kept in Redis forever (`removeOnFailure: false`). Now a job that fails for
 * good is recorded in `job_failures` and purged from Redis 7 days after its failure, as done jobs are
 * removed at once; a failed job found without a record is recorded first and purged 7 days later.
 */
const bed = workerTestbed((env, prefixes) => (prefixes.length ? env.handle.db.deleteFrom('job_failures').where('prefix', 'in', prefixes).execute() : Promise.resolve()));
const prefix = () => bed.prefix();
const DAY = 24 * 3_600_000;

const failing: JobHandler<typeof heartbeatJob> = async (p) => {
  if (p.service.startsWith('fail-')) throw new Error(`provider refused ${p.service}`);
};

async function write(pfx: string, service: string, outboxId: number): Promise<string> {
  const q = createQueue(heartbeatJob.queue, TEST_REDIS_URL, { prefix: pfx });
  const jobId = `outbox-${outboxId}-${Date.now().toString(36)}`;
  try {
    await q.ready();
    const data: JobEnvelope = { job: heartbeatJob.name, version: heartbeatJob.version, payload: { service, at: '2026-12-01T00:00:00.000Z' }, outbox_id: outboxId, enqueued_at: new Date().toISOString() };
    await q.createJob(data).setId(jobId).retries(1).backoff('fixed', 20).save();
  } finally {
    await q.close(1000);
  }
  return jobId;
}

const inRedis = async (pfx: string, jobId: string) => ({
  failed: await bed.env.redis.sismember(`${pfx}:${heartbeatJob.queue}:failed`, jobId),
  stored: await bed.env.redis.hexists(`${pfx}:${heartbeatJob.queue}:jobs`, jobId),
});
const record = (pfx: string, jobId: string) =>
  bed.env.handle.db.selectFrom('job_failures').select(['queue', 'job', 'outbox_id', 'envelope', 'error', 'runs', 'failed_at']).where('prefix', '=', pfx).where('job_id', '=', jobId).executeTakeFirst();
const systemProcessor = (w: RunningWorker) => w.processors.find((p) => p.queueName === heartbeatJob.queue)!;

describe('failed bee-queue jobs', () => {
  test('a job that failed for good is recorded in the database, kept in Redis for 7 days, then purged; its record stays without the payload', async () => {
    const pfx = prefix();
    bed.worker = await startWorker({ ...testWorkerDeps(bed.env, pfx), handlers: { [heartbeatJob.name]: failing } });
    const jobId = await write(pfx, 'fail-a', 41);
    const rec = await waitFor(() => record(pfx, jobId), 10_000, 'the failure recorded');
    expect({ ...rec, outbox_id: Number(rec.outbox_id) }).toEqual({
      queue: heartbeatJob.queue,
      job: heartbeatJob.name,
      outbox_id: 41,
      envelope: expect.objectContaining({ job: heartbeatJob.name, payload: { service: 'fail-a', at: '2026-12-01T00:00:00.000Z' } }),
      error: 'Error: provider refused fail-a',
      runs: 2,
      failed_at: expect.any(Date),
    });
    expect(await inRedis(pfx, jobId)).toEqual({ failed: 1, stored: 1 });

    const p = systemProcessor(bed.worker!);
    // Six days later: still there for looking into.
    expect(await p.purgeFailed(new Date(Date.now() + 6 * DAY))).toEqual({ recorded: 0, purged: 0 });
    expect(await inRedis(pfx, jobId)).toEqual({ failed: 1, stored: 1 });
    // Past seven days: gone from Redis, the record kept.
    // (The relay may also have brought another test's leftover outbox row here, failing beside it: counted too.)
    expect((await p.purgeFailed(new Date(Date.now() + 7 * DAY + 60_000))).purged).toBeGreaterThanOrEqual(1);
    expect(await inRedis(pfx, jobId)).toEqual({ failed: 0, stored: 0 });
    // The record keeps what failed and why, not the job's payload (personal data of a notification, say).
    expect(await record(pfx, jobId)).toMatchObject({ job: heartbeatJob.name, envelope: null, error: 'Error: provider refused fail-a', runs: 2 });
  });

  test('a failed job without a record (the database was away when it failed) is recorded by the purge first, and purged only 7 days after that', async () => {
    const pfx = prefix();
    const jobId = 'outbox-77-lost';
    const stored = { data: { job: heartbeatJob.name, version: 1, payload: { service: 'x', at: 'y' }, outbox_id: 77 }, options: { stacktraces: ['Error: database away\n    at somewhere (file.ts:1:1)'] }, status: 'failed' };
    await bed.env.redis.hset(`${pfx}:${heartbeatJob.queue}:jobs`, jobId, JSON.stringify(stored));
    await bed.env.redis.sadd(`${pfx}:${heartbeatJob.queue}:failed`, jobId, 'outbox-78-no-data');
    bed.worker = await startWorker({ ...testWorkerDeps(bed.env, pfx), handlers: { [heartbeatJob.name]: failing } });
    // The purge at start records both (a year-old failure is not purged before it is recorded).
    await waitFor(async () => (await record(pfx, 'outbox-78-no-data')) && (await record(pfx, jobId)), 5000, 'recorded at start');
    expect(await record(pfx, jobId)).toMatchObject({ job: heartbeatJob.name, error: 'Error: database away', runs: 1 });
    expect(await record(pfx, 'outbox-78-no-data')).toMatchObject({ job: 'unknown', envelope: null, error: 'failed (job data missing)', runs: 0 });
    expect(await inRedis(pfx, jobId)).toEqual({ failed: 1, stored: 1 });
    const p = systemProcessor(bed.worker!);
    expect(await p.purgeFailed(new Date(Date.now() + 6 * DAY))).toEqual({ recorded: 0, purged: 0 });
    expect((await p.purgeFailed(new Date(Date.now() + 7 * DAY + 60_000))).purged).toBeGreaterThanOrEqual(2);
    expect(await inRedis(pfx, jobId)).toEqual({ failed: 0, stored: 0 });
    expect(await bed.env.redis.scard(`${pfx}:${heartbeatJob.queue}:failed`)).toBe(0);
  });

  test('the worker purges on its own schedule: with a retention of 0 a failed job leaves Redis, its record stays', async () => {
    const pfx = prefix();
    bed.worker = await startWorker({ ...testWorkerDeps(bed.env, pfx), handlers: { [heartbeatJob.name]: failing }, failedRetentionMs: 0, failedPurgeIntervalMs: 100 });
    const jobId = await write(pfx, 'fail-b', 42);
    await waitFor(async () => (await record(pfx, jobId)) !== undefined, 10_000, 'the failure recorded');
    await waitFor(async () => (await bed.env.redis.scard(`${pfx}:${heartbeatJob.queue}:failed`)) === 0, 10_000, 'the failed job purged');
    expect(await inRedis(pfx, jobId)).toEqual({ failed: 0, stored: 0 });
    expect(await record(pfx, jobId)).toMatchObject({ job: heartbeatJob.name, runs: 2 });
  });
});
