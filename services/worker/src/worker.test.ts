import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import Redis from 'ioredis';
import { enqueueOutbox } from '@pos/db';
import { checkDependencies, HealthMonitor } from '@pos/core/health/check-dependencies';
import { createQueue, heartbeatJob, jobMessage, notificationSendJob, QUEUES } from '@pos/kernel/queues/index';
import { startWorker, stopWorker, type RunningWorker } from './worker.ts';
import { OutboxRelay, outboxJobId } from './outbox-relay.ts';
import { workerFetch } from './http.ts';
import { WorkerMetrics } from './metrics.ts';
import type { NotificationDriver } from './notifications/driver.ts';
import type { RenderedNotification } from './notifications/templates.ts';
import { dropPrefix, openTestEnv, TEST_REDIS_URL, testFiscal, uniquePrefix, waitFor, type TestEnv } from './test-support.ts';

let env: TestEnv;
const prefixes: string[] = [];
let worker: RunningWorker | undefined;

beforeAll(async () => {
  env = await openTestEnv();
});

afterEach(async () => {
  await stopWorker(worker);
  worker = undefined;
});

afterAll(async () => {
  for (const p of prefixes) await dropPrefix(env.redis, p);
  await env.close();
});

function prefix(): string {
  const p = uniquePrefix();
  prefixes.push(p);
  return p;
}

async function start(opts: { notifications?: NotificationDriver; port?: number; newerReleaseDeferral?: { retries: number; backoffMs: number } } = {}): Promise<RunningWorker> {
  worker = await startWorker({
    db: env.handle.db,
    redis: env.redis,
    redisUrl: TEST_REDIS_URL,
    log: env.log,
    prefix: prefix(),
    heartbeatMs: 3_600_000,
    // No scheduled sweeps here: fiscal recovery has its own test file.
    fiscal: testFiscal(env.log),
    fiscalRecoverMs: 0,
    relayIntervalMs: 50,
    ...opts,
  });
  return worker;
}

/** Writes a job row the way use cases do and returns its outbox id. */
async function enqueue(msg: { queue: string; job: string; payload: Record<string, unknown> }): Promise<number> {
  await enqueueOutbox(env.handle.db, msg);
  const row = await env.handle.db
    .selectFrom('outbox')
    .select('id')
    .where('job', '=', msg.job)
    .where('payload', '@>', JSON.stringify(msg.payload) as never)
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

async function outboxRow(id: number) {
  return env.handle.db.selectFrom('outbox').selectAll().where('id', '=', String(id)).executeTakeFirstOrThrow();
}

describe('outbox relay and processor', () => {
  test('relays outbox rows to bee-queue; the heartbeat handler upserts the heartbeats row', async () => {
    const w = await start();
    const service = `test-${crypto.randomUUID()}`;
    const id = await enqueue(jobMessage(heartbeatJob, { service, at: new Date().toISOString() }));
    w.relay.trigger();

    const beat = await waitFor(
      () => env.handle.db.selectFrom('heartbeats').selectAll().where('service', '=', service).executeTakeFirst(),
      5000,
      'heartbeats row',
    );
    expect(beat.beat_at).toBeInstanceOf(Date);
    expect(beat.info).toMatchObject({ job_id: expect.stringMatching(new RegExp(`^outbox-${id}-`)) });
    const row = await outboxRow(id);
    expect(row.relayed_at).not.toBeNull();
    expect(row.attempts).toBe(0);
    expect(await w.metrics.processedCount('heartbeat')).toBeGreaterThanOrEqual(1);
    // The start-up beat of the scheduler went the same way.
    await waitFor(() => env.handle.db.selectFrom('heartbeats').select('service').where('service', '=', 'worker').executeTakeFirst(), 5000, 'worker heartbeat');
  });

  test('a row relayed again after a crash runs once', async () => {
    const w = await start();
    const service = `test-${crypto.randomUUID()}`;
    const id = await enqueue(jobMessage(heartbeatJob, { service, at: new Date().toISOString() }));
    w.relay.trigger();
    const first = await waitFor(() => env.handle.db.selectFrom('heartbeats').selectAll().where('service', '=', service).executeTakeFirst(), 5000, 'heartbeat');

    // As if the worker died after writing to Redis but before committing relayed_at. Relayed again before
    // bee-queue removed the finished job (removeOnSuccess runs after the handler wrote its row), the row is
    // taken as relayed already (bee-queue keeps one job per id) and nothing runs; and the outbox is shared
    // by every test file of the run (another file's relay would queue it under its own prefix). Either
    // way the row is put back and relayed again until this worker has seen it.
    const skipped = async () => (await w.metrics.render(undefined, [])).includes('worker_jobs_skipped_total{job="heartbeat"} 1');
    for (let attempt = 0; attempt < 5 && !(await skipped()); attempt++) {
      await env.handle.db.updateTable('outbox').set({ relayed_at: null }).where('id', '=', String(id)).execute();
      await w.relay.runOnce();
      await waitFor(skipped, 2000, 'skipped job').catch(() => undefined);
    }
    expect(await skipped()).toBe(true);
    const again = await env.handle.db.selectFrom('heartbeats').selectAll().where('service', '=', service).executeTakeFirstOrThrow();
    expect(again.beat_at.getTime()).toBe(first.beat_at.getTime());
    expect((await outboxRow(id)).relayed_at).not.toBeNull();
  });

  test('with Redis unreachable the rows stay pending and their attempts go up', async () => {
    const ids = [
      await enqueue(jobMessage(heartbeatJob, { service: `down-${crypto.randomUUID()}`, at: new Date().toISOString() })),
      await enqueue(jobMessage(notificationSendJob, { channel: 'email', to: `down-${crypto.randomUUID()}@example.test`, template: 'activation_code', data: { code: '1' } })),
    ];
    const metrics = new WorkerMetrics();
    const relay = new OutboxRelay({ db: env.handle.db, redisUrl: 'redis://127.0.0.1:1', log: env.log, prefix: prefix(), metrics, redisTimeoutMs: 3000 });
    try {
      const first = await relay.runOnce();
      expect(first.relayed).toBe(0);
      expect(first.failed).toBeGreaterThanOrEqual(2);
      for (const id of ids) {
        const row = await outboxRow(id);
        expect(row.relayed_at).toBeNull();
        expect(row.attempts).toBe(1);
      }
      await relay.runOnce();
      for (const id of ids) expect((await outboxRow(id)).attempts).toBe(2);
      expect(await metrics.outboxRelayFailures()).toBeGreaterThanOrEqual(4);
    } finally {
      await relay.stop();
      await env.handle.db.deleteFrom('outbox').where('id', 'in', ids.map(String)).execute();
    }
  });

  test('the processor refuses an invalid payload: logged, failed once, handler not run', async () => {
    const w = await start();
    const service = `bad-${crypto.randomUUID()}`;
    // Written raw, as a buggy or older writer would: `at` missing, an unknown key.
    await env.handle.db.insertInto('outbox').values({ queue: QUEUES.system, job: 'heartbeat', payload: JSON.stringify({ service, when: 'now' }) }).execute();
    const row = await env.handle.db
      .selectFrom('outbox')
      .select(['id', 'created_at'])
      .where('payload', '@>', JSON.stringify({ service }) as never)
      .executeTakeFirstOrThrow();
    w.relay.trigger();

    const inspector = createQueue(QUEUES.system, TEST_REDIS_URL, { prefix: w.prefix });
    try {
      const jobId = outboxJobId({ id: Number(row.id), created_at: row.created_at });
      const failed = await waitFor(async () => (await inspector.getJobs('failed', { size: 100 })).find((j) => j.id === jobId), 5000, 'failed job');
      expect(failed.status).toBe('failed');
      expect(failed.options.retries).toBe(0);
      expect(String(failed.options.stacktraces[0])).toContain('invalid payload');
      expect(await w.metrics.failedCount('heartbeat')).toBe(1);
      expect(await env.handle.db.selectFrom('heartbeats').select('service').where('service', '=', service).executeTakeFirst()).toBeUndefined();
    } finally {
      await inspector.close();
    }
  });

  test('the processor refuses a malformed envelope at once', async () => {
    const w = await start();
    const producer = createQueue(QUEUES.notifications, TEST_REDIS_URL, { prefix: w.prefix });
    try {
      const job = await producer.createJob({ nonsense: true } as never).save();
      await waitFor(async () => (await w.metrics.failedCount('unknown')) === 1, 5000, 'the refusal');
      const stored = await producer.getJob(job.id);
      expect(stored.status).toBe('failed');
      expect(stored.options.retries).toBe(0);
    } finally {
      await producer.close();
    }
  });

  test('a job of a newer release (unknown name, newer payload version) is handed back to its queue, then failed for good after the deferral', async () => {
    const w = await start({ newerReleaseDeferral: { retries: 2, backoffMs: 150 } });
    const producer = createQueue(QUEUES.notifications, TEST_REDIS_URL, { prefix: w.prefix });
    try {
      const unknown = await producer.createJob({ job: 'newer.job', version: 1, payload: {} }).save();
      const newer = await producer.createJob({ job: notificationSendJob.name, version: notificationSendJob.version + 1, payload: { anything: true } }).save();
      // First run: back on the queue (delayed), not failed, its deferral counted on the job.
      for (const id of [unknown.id, newer.id]) {
        const deferred = await waitFor(async () => {
          const j = await producer.getJob(id);
          return j.status === 'retrying' ? j : undefined;
        }, 5000, 'the deferral');
        expect(deferred.options).toMatchObject({ newerRelease: { retries: 0, backoff: null }, retries: 1, backoff: { strategy: 'exponential', delay: 300 } });
      }
      expect(await w.metrics.failedCount('newer.job')).toBe(0);
      expect(await w.metrics.failedCount(notificationSendJob.name)).toBe(0);
      // After 150 + 300 ms of backoff (three runs in all), failed for good and recorded.
      await waitFor(async () => (await w.metrics.failedCount('newer.job')) === 1 && (await w.metrics.failedCount(notificationSendJob.name)) === 1, 10_000, 'two refusals');
      for (const id of [unknown.id, newer.id]) {
        const stored = await producer.getJob(id);
        expect(stored.status).toBe('failed');
        expect(stored.options.stacktraces).toHaveLength(3);
      }
      const recorded = await waitFor(async () => {
        const rows = await env.handle.db.selectFrom('job_failures').select(['job', 'runs']).where('prefix', '=', w.prefix).where('queue', '=', QUEUES.notifications).where('job_id', 'in', [unknown.id, newer.id]).execute();
        return rows.length === 2 ? rows : undefined;
      }, 5000, 'job_failures rows');
      expect(recorded.map((r) => `${r.job} ${r.runs}`).sort()).toEqual([`newer.job 3`, `${notificationSendJob.name} 3`].sort());
    } finally {
      await producer.close();
    }
  });

  test('a deferred job that reaches a worker knowing it runs with its own retries and backoff, not what is left of the deferral', async () => {
    let runs = 0;
    const w = await start({ newerReleaseDeferral: { retries: 4, backoffMs: 100 }, notifications: { name: 'failing', send: async () => { runs++; throw new Error('smtp down'); } } });
    const producer = createQueue(QUEUES.notifications, TEST_REDIS_URL, { prefix: w.prefix });
    const def = notificationSendJob as { version: number };
    const known = def.version;
    try {
      const payload = { channel: 'email', to: `newer-${crypto.randomUUID()}@example.test`, template: 'activation_code', data: { code: '482913', expires_in_minutes: 15 } };
      // Written by a newer release: version + 1, its own budget 2 retries, 50 ms apart.
      const job = await producer.createJob({ job: notificationSendJob.name, version: known + 1, payload }).retries(2).backoff('fixed', 50).save();
      const deferred = await waitFor(async () => {
        const j = await producer.getJob(job.id);
        return j.status === 'retrying' ? j : undefined;
      }, 5000, 'the deferral');
      expect(deferred.options).toMatchObject({ newerRelease: { retries: 2, backoff: { strategy: 'fixed', delay: 50 } }, retries: 3 });
      // The worker is upgraded (it now knows the version): the job runs 1 + its own 2 retries, not 1 + the deferral's 3 left.
      def.version = known + 1;
      await waitFor(async () => (await producer.getJob(job.id)).status === 'failed' || undefined, 10_000, 'the failure');
      await Bun.sleep(300);
      expect(runs).toBe(3);
      const failed = await producer.getJob(job.id);
      expect(failed.options.newerRelease).toBeUndefined();
      expect(failed.options.retries).toBe(0);
    } finally {
      def.version = known;
      await producer.close();
    }
  });

  test('notification.send renders the template and hands it to the driver', async () => {
    const sent: RenderedNotification[] = [];
    const w = await start({ notifications: { name: 'capture', send: async (n) => void sent.push(n) } });
    const to = `owner-${crypto.randomUUID()}@example.test`;
    await enqueue(jobMessage(notificationSendJob, { channel: 'email', to, template: 'activation_code', data: { code: '482913', expires_in_minutes: 15 } }));
    w.relay.trigger();
    const n = await waitFor(() => sent.find((x) => x.to === to), 5000, 'notification');
    expect(n.subject).toBe('Your activation code: 482913');
    expect(n.body).toContain('15 minutes');
    expect(await w.metrics.processedCount('notification.send')).toBe(1);
  });

  test('jobMessage refuses a payload its schema rejects', () => {
    expect(() => jobMessage(heartbeatJob, { service: '', at: 'yesterday' })).toThrow('Invalid payload for job heartbeat');
  });
});

describe('worker HTTP', () => {
  test('GET /health is 200 with both checks; GET /metrics carries the counters', async () => {
    const w = await start({ port: 0 });
    expect(w.port).toBeGreaterThan(0);
    const service = `metrics-${crypto.randomUUID()}`;
    await enqueue(jobMessage(heartbeatJob, { service, at: new Date().toISOString() }));
    w.relay.trigger();
    await waitFor(() => env.handle.db.selectFrom('heartbeats').select('service').where('service', '=', service).executeTakeFirst(), 5000, 'heartbeat');

    const health = await fetch(`http://127.0.0.1:${w.port}/health`);
    expect(health.status).toBe(200);
    const body = (await health.json()) as { status: string; checks: Record<string, { status: string }> };
    expect(body.status).toBe('ok');
    expect(body.checks.database?.status).toBe('ok');
    expect(body.checks.redis?.status).toBe('ok');

    const metrics = await fetch(`http://127.0.0.1:${w.port}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toStartWith('text/plain');
    const text = await metrics.text();
    expect(text).toMatch(/^worker_jobs_processed_total\{job="heartbeat"\} [1-9]\d*$/m);
    expect(text).toMatch(/^worker_jobs_failed_total\{job="notification.send"\} 0$/m);
    expect(text).toMatch(/^worker_outbox_relayed_total [1-9]\d*$/m);
    expect(text).toMatch(/^worker_outbox_pending \d+$/m);
    expect(text).toMatch(/^worker_outbox_last_relay_timestamp_seconds \d+(\.\d+)?$/m);
    expect(text).toContain('# TYPE worker_outbox_pending gauge');

    expect((await fetch(`http://127.0.0.1:${w.port}/nothing`)).status).toBe(404);
  });

  test('GET /health is 503 naming redis when Redis does not answer', async () => {
    const down = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, enableOfflineQueue: false });
    down.on('error', () => {});
    try {
      const handler = workerFetch({ db: env.handle.db, health: new HealthMonitor(() => checkDependencies(env.handle.db, down), 0), metrics: new WorkerMetrics() });
      const res = await handler(new Request('http://localhost/health'));
      expect(res.status).toBe(503);
      const body = (await res.json()) as { status: string; message: string; checks: Record<string, { status: string }> };
      expect(body.status).toBe('fail');
      expect(body.message).toBe('Unhealthy: redis');
      expect(body.checks.database?.status).toBe('ok');
      expect(body.checks.redis?.status).toBe('fail');
    } finally {
      down.disconnect();
    }
  });
});
