import { describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { createQueue, heartbeatJob, type JobEnvelope } from '@pos/kernel/queues/index';
import type { JobHandler } from './jobs/job-handler.ts';
import { startWorker } from './worker.ts';
import { workerTestbed } from './worker-testbed.ts';
import { TEST_REDIS_URL, testWorkerDeps, waitFor } from './test-support.ts';

/**
 * A run that outlives its job's timeout: bee-queue fails it and starts the retry, but the run itself
 * keeps going. The retry must not run the handler beside it: it waits for the first run's lease, then
 * skips the job on its done marker (or runs it, when the first run failed).
 */
const services: string[] = [];
const bed = workerTestbed((env) => (services.length ? env.handle.db.deleteFrom('heartbeats').where('service', 'in', services).execute() : Promise.resolve()));

/** A non-idempotent side effect: one more run counted in the `heartbeats` row of `service`. */
const countRun = (service: string) =>
  sql`insert into heartbeats (service, beat_at, info) values (${service}, now(), '{"runs":1}'::jsonb)
      on conflict (service) do update set info = jsonb_build_object('runs', (heartbeats.info->>'runs')::int + 1)`.execute(bed.env.handle.db);
const runs = async (service: string) => {
  const r = await bed.env.handle.db.selectFrom('heartbeats').select('info').where('service', '=', service).executeTakeFirst();
  return r ? (r.info as { runs: number }).runs : 0;
};

interface Started {
  pfx: string;
  jobId: string;
  service: string;
}

/** A worker whose heartbeat handler is `handler`, and one relayed-style heartbeat job with a short timeout. */
async function start(handler: (service: string, call: number) => Promise<void>, opts: { leaseHeldMs?: number } = {}): Promise<Started> {
  const pfx = bed.prefix();
  const service = `lease-${crypto.randomUUID()}`;
  services.push(service);
  let calls = 0;
  // The worker's own start-up heartbeat goes through the same handler: only this job's runs count.
  const h: JobHandler<typeof heartbeatJob> = async (p) => (p.service === service ? handler(p.service, ++calls) : undefined);
  const jobId = `outbox-${Math.floor(Math.random() * 1e9)}-${Date.now().toString(36)}`;
  // As a run in a worker that died leaves it: a lease nobody renews.
  if (opts.leaseHeldMs) await bed.env.redis.set(`${pfx}:outbox:lease:${jobId}`, 'dead-worker', 'PX', opts.leaseHeldMs);
  bed.worker = await startWorker({ ...testWorkerDeps(bed.env, pfx), handlers: { [heartbeatJob.name]: h } });
  const q = createQueue(heartbeatJob.queue, TEST_REDIS_URL, { prefix: pfx });
  try {
    await q.ready();
    const data: JobEnvelope = { job: heartbeatJob.name, version: heartbeatJob.version, payload: { service, at: new Date().toISOString() }, outbox_id: 1, enqueued_at: new Date().toISOString() };
    await q.createJob(data).setId(jobId).timeout(400).retries(5).backoff('fixed', 100).save();
  } finally {
    await q.close(1000);
  }
  return { pfx, jobId, service };
}

const finished = async ({ pfx, jobId }: Started) => {
  await waitFor(async () => (await bed.env.redis.hexists(`${pfx}:${heartbeatJob.queue}:jobs`, jobId)) === 0, 15_000, 'the job to leave bee-queue');
  return {
    failed: await bed.env.redis.sismember(`${pfx}:${heartbeatJob.queue}:failed`, jobId),
    done: await bed.env.redis.exists(`${pfx}:outbox:done:${jobId}`),
    lease: await bed.env.redis.exists(`${pfx}:outbox:lease:${jobId}`),
  };
};

describe('a run that outlives its job timeout', () => {
  test('the retry does not run the handler beside it: the job is done once and succeeds', async () => {
    const calls: number[] = [];
    const s = await start(async (service, call) => {
      calls.push(call);
      if (call === 1) await Bun.sleep(1000); // 2.5 times the job's 400 ms
      await countRun(service);
    });
    expect(await finished(s)).toEqual({ failed: 0, done: 1, lease: 0 });
    await Bun.sleep(300);
    expect(calls).toEqual([1]);
    expect(await runs(s.service)).toBe(1);
    expect(await bed.worker!.metrics.render(undefined, [])).toContain('worker_jobs_skipped_total{job="heartbeat"} 1');
  });

  test('when the timed-out run then fails, the retry runs the job after it, never beside it', async () => {
    let inFlight = 0;
    let most = 0;
    const s = await start(async (service, call) => {
      most = Math.max(most, ++inFlight);
      try {
        if (call === 1) {
          await Bun.sleep(700);
          throw new Error('provider answered 500 after a long wait');
        }
        await countRun(service);
      } finally {
        inFlight--;
      }
    });
    expect(await finished(s)).toEqual({ failed: 0, done: 1, lease: 0 });
    expect(most).toBe(1);
    expect(await runs(s.service)).toBe(1);
  });

  test('a lease left by a worker that died lapses and the job runs', async () => {
    const s = await start(async (service) => {
      await countRun(service);
    }, { leaseHeldMs: 600 });
    expect(await finished(s)).toEqual({ failed: 0, done: 1, lease: 0 });
    expect(await runs(s.service)).toBe(1);
  });
});

describe('one outbox row relayed onto two queues', () => {
  test('the job moved queue between two relays of its row (a relay that died before its commit, a deploy between): it runs once', async () => {
    const s = await start(async (service) => {
      await countRun(service);
    });
    expect(await finished(s)).toEqual({ failed: 0, done: 1, lease: 0 });
    // The same row relayed again by a newer build whose definition names another queue.
    const other = createQueue('notifications', TEST_REDIS_URL, { prefix: s.pfx });
    try {
      await other.ready();
      const data: JobEnvelope = { job: heartbeatJob.name, version: heartbeatJob.version, payload: { service: s.service, at: new Date().toISOString() }, outbox_id: 1, enqueued_at: new Date().toISOString() };
      await other.createJob(data).setId(s.jobId).save();
    } finally {
      await other.close(1000);
    }
    await waitFor(async () => (await bed.env.redis.hexists(`${s.pfx}:notifications:jobs`, s.jobId)) === 0, 15_000, 'the second relay of the row to leave bee-queue');
    expect(await runs(s.service)).toBe(1);
    expect(await bed.env.redis.sismember(`${s.pfx}:notifications:failed`, s.jobId)).toBe(0);
  });
});
