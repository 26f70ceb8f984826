import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { fanOut, FAN_OUT_JOB, heartbeatJob, jobMessage, rowMessages, stockEdgeSyncJob, type JobPayload } from '@pos/kernel/queues/index';
import { systemClock } from '@pos/kernel';
import { startWorker, stopWorker, type RunningWorker } from './worker.ts';
import { createHandlers } from './jobs/index.ts';
import { OutboxRelay, outboxJobId } from './outbox-relay.ts';
import { DONE_MARKER_TTL_S } from './processor.ts';
import { dropPrefix, openTestEnv, testFiscal, testWorkerDeps, uniquePrefix, waitFor, type TestEnv } from './test-support.ts';

/**
 * Fan-out rows (`fanOut`): one outbox row carries the messages of several jobs (the post-capture
 * sequence's follow-up jobs); the relay writes each to its own job's queue as if it had its own row,
 * with its own done marker (row id and place), so each runs once, even when the row is relayed again.
 */
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

type EdgeSync = JobPayload<typeof stockEdgeSyncJob>;
const tenant = `t_fanout_${crypto.randomUUID().slice(0, 8)}`;
const edge = (transactionId: string) => jobMessage(stockEdgeSyncJob, { tenant_database: tenant, transaction_id: transactionId, location_id: crypto.randomUUID(), item_ids: [] });
const beat = (service: string) => jobMessage(heartbeatJob, { service, at: new Date().toISOString() });

/** A worker recording the edge syncs of this test's tenant (run as batches) and the heartbeats it is told about. */
async function start(edges: string[], beats: string[], services: readonly string[]): Promise<RunningWorker> {
  const prefix = uniquePrefix();
  prefixes.push(prefix);
  worker = await startWorker({
    ...testWorkerDeps(env, prefix),
    handlers: {
      ...createHandlers({ fiscal: testFiscal(env.log), clock: systemClock }),
      [stockEdgeSyncJob.name]: async () => {
        throw new Error('not expected: the batch handler runs these');
      },
      [heartbeatJob.name]: async (p: { service: string }) => void (services.includes(p.service) && beats.push(p.service)),
    },
    batchHandlers: {
      [stockEdgeSyncJob.name]: async (ps: readonly EdgeSync[]) => {
        edges.push(...ps.filter((p) => p.tenant_database === tenant).map((p) => p.transaction_id));
        return ps.map(() => null);
      },
    },
  });
  return worker;
}

async function insert(msg: { queue: string; job: string; payload: Record<string, unknown> }): Promise<{ id: number; created_at: Date }> {
  const r = await env.handle.db
    .insertInto('outbox')
    .values({ queue: msg.queue, job: msg.job, payload: JSON.stringify(msg.payload) as never })
    .returning(['id', 'created_at'])
    .executeTakeFirstOrThrow();
  return { id: Number(r.id), created_at: r.created_at };
}

const relayedAt = async (id: number) => (await env.handle.db.selectFrom('outbox').select('relayed_at').where('id', '=', String(id)).executeTakeFirstOrThrow()).relayed_at;

describe('fan-out outbox rows', () => {
  test('fanOut keeps the messages in order; a row of one job is its own message', () => {
    const a = edge(crypto.randomUUID());
    const b = beat('b');
    const row = fanOut([a, b]);
    expect(row).toEqual({ queue: 'fan-out', job: FAN_OUT_JOB, payload: { messages: [{ job: a.job, payload: a.payload }, { job: b.job, payload: b.payload }] } });
    expect(rowMessages(row)).toEqual([
      { job: a.job, payload: a.payload, part: 0 },
      { job: b.job, payload: b.payload, part: 1 },
    ]);
    expect(rowMessages(a)).toEqual([{ job: a.job, payload: a.payload, part: undefined }]);
    expect(() => fanOut([])).toThrow('a fan-out row carries 1 to 16 messages, not 0');
    expect(() => fanOut(Array.from({ length: 17 }, () => a))).toThrow('a fan-out row carries 1 to 16 messages, not 17');
  });

  test('each message runs once on its own queue (batch or single job), with a done marker per place; relayed again, none runs twice', async () => {
    const [t1, t2] = [crypto.randomUUID(), crypto.randomUUID()];
    const service = `fanout-beat-${crypto.randomUUID()}`;
    const edges: string[] = [];
    const beats: string[] = [];
    const row = await insert(fanOut([edge(t1), beat(service), edge(t2)]));
    const w = await start(edges, beats, [service]);
    await waitFor(() => edges.length >= 2 && beats.length >= 1, 10_000, 'the three messages');
    await Bun.sleep(200);
    expect([...edges].sort()).toEqual([t1, t2].sort());
    expect(beats).toEqual([service]);
    expect(await relayedAt(row.id)).not.toBeNull();
    // The markers name the row and each message's place.
    const payments = w.processors.find((p) => p.queueName === stockEdgeSyncJob.queue)!;
    const system = w.processors.find((p) => p.queueName === heartbeatJob.queue)!;
    expect(await env.redis.exists(payments.doneKey(outboxJobId(row, 0)), payments.doneKey(outboxJobId(row, 2)), system.doneKey(outboxJobId(row, 1)))).toBe(3);
    expect(outboxJobId(row, 1)).toBe(`${outboxJobId(row)}-p1`);
    // Kept a day (written for the whole batch by one script).
    const ttl = await env.redis.ttl(payments.doneKey(outboxJobId(row, 2)));
    expect(ttl).toBeGreaterThan(DONE_MARKER_TTL_S - 60);
    expect(ttl).toBeLessThanOrEqual(DONE_MARKER_TTL_S);

    // As if the relay died after writing to Redis but before its commit: the whole row goes again.
    await env.handle.db.updateTable('outbox').set({ relayed_at: null }).where('id', '=', String(row.id)).execute();
    w.relay.trigger();
    await waitFor(async () => (await relayedAt(row.id)) !== null, 10_000, 'relayed again');
    await waitFor(async () => (await w.metrics.render(undefined, [])).includes(`worker_jobs_skipped_total{job="${stockEdgeSyncJob.name}"} 2`), 10_000, 'two skipped edge syncs');
    await Bun.sleep(300);
    expect(edges.length).toBe(2);
    expect(beats).toEqual([service]);
  });

  test('a relay takes a fan-out row only when it knows every job the row carries', async () => {
    const row = await insert(fanOut([beat(`fanout-partial-${crypto.randomUUID()}`), edge(crypto.randomUUID())]));
    const prefix = uniquePrefix();
    prefixes.push(prefix);
    const heartbeatsOnly = new OutboxRelay({ db: env.handle.db, redisUrl: 'redis://127.0.0.1:6379', log: env.log, prefix, jobs: [heartbeatJob], listen: false });
    const all = new OutboxRelay({ db: env.handle.db, redisUrl: 'redis://127.0.0.1:6379', log: env.log, prefix, listen: false });
    try {
      for (let i = 0; i < 3 && (await relayedAt(row.id)) === null; i++) await heartbeatsOnly.runOnce();
      expect(await relayedAt(row.id)).toBeNull();
      // Rows of other tests may come first: poll until this one went.
      for (let i = 0; i < 20 && (await relayedAt(row.id)) === null; i++) await all.runOnce();
      expect(await relayedAt(row.id)).not.toBeNull();
      // The heartbeat (a job without batches) travelled alone under its row id and place.
      expect(await env.redis.hexists(`${prefix}:${heartbeatJob.queue}:jobs`, outboxJobId(row, 0))).toBe(1);
    } finally {
      await heartbeatsOnly.stop();
      await all.stop();
      await env.handle.db.deleteFrom('outbox').where('id', '=', String(row.id)).execute();
    }
  });
});
