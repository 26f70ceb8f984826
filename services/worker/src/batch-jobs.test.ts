import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { fanOut, FAN_OUT_JOB, heartbeatJob, jobMessage, rowMessages, stockEdgeSyncJob, type JobPayload } from '@pos/kernel/queues/index';
import { startWorker, stopWorker, type RunningWorker } from './worker.ts';
import { createHandlers } from './jobs/index.ts';
import type { BatchJobHandler, JobHandler } from './jobs/job-handler.ts';
import { OutboxRelay, outboxJobId } from './outbox-relay.ts';
import { DONE_MARKER_TTL_S } from './processor.ts';
import { dropPrefix, openTestEnv, testFiscal, testWorkerDeps, uniquePrefix, waitFor, type TestEnv } from './test-support.ts';
import { systemClock } from '@pos/kernel';

/**
 * Batches (`JobDefinition.batch`): the relay packs pending rows of a batch job into bee-queue jobs of
 * at most `batch` rows, the processor checks each row, skips rows whose done marker is set, hands
 * the rest to the job's batch handler at once, retries only the rows that failed, and falls back to
 * the single handler, row by row, when the batch handler throws. The rows here name a tenant no
 * other test uses, so rows other tests leave in the shared outbox never reach these handlers' records.
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
const tenant = `t_batch_${crypto.randomUUID().slice(0, 8)}`;
const mine = (p: EdgeSync) => p.tenant_database === tenant;

/** A worker whose `stock.edge-sync` handlers record what they were given (only this test's rows). */
async function start(batch: BatchJobHandler<typeof stockEdgeSyncJob> | undefined, single: JobHandler<typeof stockEdgeSyncJob>, extra: Record<string, JobHandler<any>> = {}): Promise<RunningWorker> {
  const prefix = uniquePrefix();
  prefixes.push(prefix);
  worker = await startWorker({
    ...testWorkerDeps(env, prefix),
    handlers: { ...createHandlers({ fiscal: testFiscal(env.log), clock: systemClock }), [stockEdgeSyncJob.name]: single, ...extra },
    batchHandlers: batch ? { [stockEdgeSyncJob.name]: batch } : {},
  });
  return worker;
}

/** `n` edge-sync rows of this test's tenant, written in one statement (consecutive ids); returns their transaction ids in id order. */
async function rows(n: number, payload: (i: number) => Record<string, unknown> = () => ({})): Promise<string[]> {
  const ids = Array.from({ length: n }, () => crypto.randomUUID());
  await env.handle.db
    .insertInto('outbox')
    .values(ids.map((id, i) => ({ queue: stockEdgeSyncJob.queue, job: stockEdgeSyncJob.name, payload: JSON.stringify({ tenant_database: tenant, transaction_id: id, location_id: crypto.randomUUID(), item_ids: [], ...payload(i) }) as never })))
    .execute();
  return ids;
}

const sorted = (xs: readonly string[]) => [...xs].sort();
/** `xs` in the order of `ids` (the outbox id order of the rows). */
const inIdOrder = (xs: readonly string[], ids: readonly string[]) => [...xs].sort((a, b) => ids.indexOf(a) - ids.indexOf(b));

const pending = async (ids: readonly string[]) =>
  Number(
    (
      await env.handle.db
        .selectFrom('outbox')
        .select((e) => e.fn.countAll<string>().as('n'))
        .where('relayed_at', 'is', null)
        .where(sql<string>`payload->>'transaction_id'`, 'in', ids)
        .executeTakeFirstOrThrow()
    ).n,
  );

describe('batch jobs', () => {
  test('the relay packs up to `batch` rows per bee-queue job; the batch handler gets each row once, in id order', async () => {
    expect(stockEdgeSyncJob.batch).toBe(100);
    const calls: string[][] = [];
    const singles: string[] = [];
    const ids = await rows(240);
    await start(
      async (ps) => {
        const own = ps.filter(mine);
        if (own.length) calls.push(own.map((p) => p.transaction_id));
        return ps.map(() => null);
      },
      async (p) => void (mine(p) && singles.push(p.transaction_id)),
    );
    await waitFor(() => calls.flat().length >= 240, 10_000, 'all rows handled');
    await Bun.sleep(200);
    // Each row once, each batch in id order. The relay's two polls in flight may share rows written
    // together (each skips what the other locked), and their jobs may run in either order.
    expect(sorted(calls.flat())).toEqual(sorted(ids));
    for (const c of calls) expect(c).toEqual(inIdOrder(c, ids));
    expect(calls.every((c) => c.length <= 100)).toBe(true);
    // Written together, they were relayed together: three bee-queue jobs (100, 100, 40), one more when the two polls split them.
    expect(calls.length).toBeLessThanOrEqual(4);
    expect(singles).toEqual([]);
    expect(await pending(ids)).toBe(0);
    expect(await worker!.metrics.processedCount(stockEdgeSyncJob.name)).toBeGreaterThanOrEqual(240);
  });

  test('rows relayed again after a crash are skipped by their done markers; a job without `batch` still travels alone', async () => {
    const seen: string[] = [];
    const ids = await rows(10);
    const beat = `batch-beat-${crypto.randomUUID()}`;
    const beats: string[] = [];
    await env.handle.db.insertInto('outbox').values({ ...jobMessage(heartbeatJob, { service: beat, at: new Date().toISOString() }), payload: JSON.stringify({ service: beat, at: new Date().toISOString() }) as never }).execute();
    const w = await start(
      async (ps) => {
        seen.push(...ps.filter(mine).map((p) => p.transaction_id));
        return ps.map(() => null);
      },
      async () => {
        throw new Error('not expected: the batch handler runs these rows');
      },
      { [heartbeatJob.name]: async (p: { service: string }) => void (p.service === beat && beats.push(p.service)) },
    );
    await waitFor(() => seen.length >= 10 && beats.length === 1, 10_000, 'first run');
    // As if the relay died after writing to Redis but before committing relayed_at: relayed again.
    await env.handle.db.updateTable('outbox').set({ relayed_at: null }).where(sql<string>`payload->>'transaction_id'`, 'in', ids).execute();
    w.relay.trigger();
    await waitFor(async () => (await pending(ids)) === 0, 10_000, 'relayed again');
    await waitFor(async () => (await w.metrics.render(undefined, [])).includes(`worker_jobs_skipped_total{job="${stockEdgeSyncJob.name}"} 10`), 10_000, 'ten skipped rows');
    expect(sorted(seen)).toEqual(sorted(ids));
    expect(beats).toEqual([beat]);
  });

  test('a failed row fails the batch; the retry runs that row alone (the others have their markers)', async () => {
    const ids = await rows(5);
    const runs: string[][] = [];
    let failOnce = true;
    await start(
      async (ps) => {
        const own = ps.filter(mine);
        if (own.length) runs.push(own.map((p) => p.transaction_id));
        return ps.map((p) => {
          if (p.transaction_id === ids[2] && failOnce) {
            failOnce = false;
            return new Error('register busy');
          }
          return null;
        });
      },
      async () => {
        throw new Error('not expected');
      },
    );
    // bee-queue retries after its backoff (1 s for this job).
    await waitFor(() => runs.flat().length >= 6, 10_000, 'the retry');
    await Bun.sleep(200);
    // Every row ran once and the failed one once more, alone (the two polls in flight may have split the five).
    expect(sorted(runs.flat())).toEqual(sorted([...ids, ids[2]!]));
    expect(runs.at(-1)).toEqual([ids[2]!]);
    expect(await worker!.metrics.failedCount(stockEdgeSyncJob.name)).toBeGreaterThanOrEqual(1);
  });

  test('a batch handler that throws: every row runs through the single handler, and only the failing one is retried', async () => {
    const ids = await rows(4);
    const singles: string[] = [];
    let bad = 0;
    await start(
      async (ps) => {
        if (ps.some(mine)) throw new Error('set-based statement failed');
        return ps.map(() => null);
      },
      async (p) => {
        if (!mine(p)) return;
        singles.push(p.transaction_id);
        if (p.transaction_id === ids[1] && bad++ === 0) throw new Error('this row is broken once');
      },
    );
    await waitFor(() => singles.length >= 5, 10_000, 'fallback and retry');
    await Bun.sleep(200);
    expect(sorted(singles)).toEqual(sorted([...ids, ids[1]!]));
    expect(singles.at(-1)).toBe(ids[1]!);
  });

  test('a row whose payload the schema refuses is refused alone; the other rows of its batch run', async () => {
    const seen: string[] = [];
    const ids = await rows(3, (i) => (i === 1 ? { item_ids: 'not-an-array' } : {}));
    await start(
      async (ps) => {
        seen.push(...ps.filter(mine).map((p) => p.transaction_id));
        return ps.map(() => null);
      },
      async () => {
        throw new Error('not expected');
      },
    );
    await waitFor(() => seen.length >= 2, 10_000, 'the valid rows');
    await Bun.sleep(300);
    expect(sorted(seen)).toEqual(sorted([ids[0]!, ids[2]!]));
    expect(await worker!.metrics.failedCount(stockEdgeSyncJob.name)).toBeGreaterThanOrEqual(1);
  });
});

/**
 * Fan-out rows (`fanOut`): one outbox row carries the messages of several jobs (the post-capture
 * sequence's follow-up jobs); the relay writes each to its own job's queue as if it had its own row,
 * with its own done marker (row id and place), so each runs once, even when the row is relayed again.
 */
const edge = (transactionId: string) => jobMessage(stockEdgeSyncJob, { tenant_database: tenant, transaction_id: transactionId, location_id: crypto.randomUUID(), item_ids: [] });
const beat = (service: string) => jobMessage(heartbeatJob, { service, at: new Date().toISOString() });

/** A worker recording this test's edge syncs (run as batches) and the heartbeats it is told about. */
const startFanOut = (edges: string[], beats: string[], services: readonly string[]) =>
  start(
    async (ps) => {
      edges.push(...ps.filter(mine).map((p) => p.transaction_id));
      return ps.map(() => null);
    },
    async () => {
      throw new Error('not expected: the batch handler runs these');
    },
    { [heartbeatJob.name]: async (p: { service: string }) => void (services.includes(p.service) && beats.push(p.service)) },
  );

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
    expect(() => fanOut([])).toThrow('a fan-out row carries 1 to 1000 messages, not 0');
    expect(() => fanOut(Array.from({ length: 1001 }, () => a))).toThrow('a fan-out row carries 1 to 1000 messages, not 1001');
  });

  test('each message runs once on its own queue (batch or single job), with a done marker per place; relayed again, none runs twice', async () => {
    const [t1, t2] = [crypto.randomUUID(), crypto.randomUUID()];
    const service = `fanout-beat-${crypto.randomUUID()}`;
    const edges: string[] = [];
    const beats: string[] = [];
    const row = await insert(fanOut([edge(t1), beat(service), edge(t2)]));
    const w = await startFanOut(edges, beats, [service]);
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
    const heartbeatsOnly = new OutboxRelay({ db: env.handle.db, redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', log: env.log, prefix, jobs: [heartbeatJob], listen: false });
    const all = new OutboxRelay({ db: env.handle.db, redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', log: env.log, prefix, listen: false });
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
