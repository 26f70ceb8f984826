/**
 * Post-capture throughput through the worker (issue 12 point 10): kiosk transactions captured
 * in-process (the capture commit writes the post-capture job to the outbox), the real worker (outbox
 * relay, bee-queue processors, the payment handlers, its own pool of `WORKER_DB_POOL` connections)
 * runs every sequence to its last job. Beside it,
 * in the same run and on the same Redis, bee-queue's raw rate of no-op jobs at the same concurrency.
 * Both are measured BENCH_ROUNDS times, alternating, with the job structure alone (the sequence's five
 * jobs in its outbox rows (one per capture, one fan-out row per batch), handlers doing nothing) between them; medians are printed with the ratio
 * sequences/s per no-op job/s (goal: at least 0.3), then the capture-to-kitchen-document latency p50/p99 of live
 * captures on an idle worker (goal: p99 under 150 ms).
 *
 * Env: BENCH_ROUNDS (5), BENCH_WARMUP (2 rounds before them, not counted), BENCH_CAPTURES (1000 per round), BENCH_LATENCY_CAPTURES (250),
 * BENCH_NOOP_JOBS (2000), BENCH_SKELETON (1000 sequences of the job structure alone per round), BENCH_CONCURRENCY (16 jobs at once per queue, for both), BENCH_RELAY_MS
 * (the relay's poll; default the worker's), BENCH_RELAY_LISTEN (1; 0: poll only, as before issue 12
 * item 10), BENCH_LATENCY_RATE (at most 40 captures a second; lower when the machine sustains less than
 * twice that), BENCH_PAYMENTS_DATABASE (ordering_bench_payments), BENCH_WINDOWS (1: each drain's window in
 * epoch µs and its WAL positions on stderr, to cut a `--cpu-prof` profile or `pg_waldump` to the drains).
 */
import { join } from 'node:path';
import pg from 'pg';
import { sql } from 'kysely';
import { bindTenant, createDatabase, dbQueryCount, migrateAll, resolveDatabase } from '@pos/db';
import { createLogger, createRedis, deleteMatching, ensureRedis, systemClock } from '@pos/kernel';
import { createQueue } from '@pos/kernel/queues/index';
import { seedDemo } from '@pos/core/seed/demo-seed';
import { capturePayment } from '@pos/core/payments/capture-payment';
import { paymentProvidersFromEnv } from '@pos/core/payments/payment-providers';
import { createFiscalService } from '@pos/core/fiscal/fiscal-service';
import { fiscalConfigFromEnv } from '@pos/core/fiscal/fiscal-config';
import { startWorker, stopWorker } from '../services/worker/src/worker.ts';
import { WORKER_DB_POOL } from '../services/worker/src/deps.ts';
import { createHandlers } from '../services/worker/src/jobs/index.ts';
import { fanOut, jobMessage, orderDispatchJob, paymentFinaliseJob, paymentPostCaptureJob, statsDailyJob, stockEdgeSyncJob } from '@pos/kernel/queues/index';
import { fmt, percentile } from './stats.ts';
import { benchRegisters, insertKioskOrders } from './kiosk-orders.ts';
import { machineBusyMs, ownCpuMs, postgresCpuMs, processCpuMs } from './process-cpu.ts';

/** Five rounds: on a shared two-core machine the no-op rate alone moves by a third from round to round, and three left the median at the mercy of one. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/**
 * Rounds run first and not counted: the code paths of both measurements compiled by the JIT, and the worker's
 * connections holding their planned statements, as in a long-running worker. Two: the tables are analysed
 * before each of them (the first finds the sequence's tables empty), and the statements are planned again
 * after an analyse, so the second plans them over the tables' realistic statistics.
 */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 2);
const PER_ROUND = Number(process.env.BENCH_CAPTURES ?? 1000);
const CAPTURES = (WARMUP + ROUNDS) * PER_ROUND + Number(process.env.BENCH_LATENCY_CAPTURES ?? 250);
/** The steps the last jobs of a sequence record (register dispatch, daily stats, finalisation, edge sync). */
const LAST_STEPS = ['register_dispatch', 'daily_stats', 'finalise', 'edge_stock_sync'];
/** Jobs of one sequence here: post-capture, then dispatch, stats, finalise and edge sync (these four in one fan-out outbox row). */
const JOBS_PER_SEQUENCE = 5;
/** The jobs that record `LAST_STEPS`, counted by the worker's metrics while the clock runs. */
const LAST_JOBS = ['order.dispatch', 'stats.daily', 'payment.finalise', 'stock.edge-sync'];
const NOOP_JOBS = Number(process.env.BENCH_NOOP_JOBS ?? 2000);
/** Sequences of the job structure alone (handlers doing nothing) per round. */
const SKELETON = Number(process.env.BENCH_SKELETON ?? 1000);
/** The jobs of one sequence, in the order they run: the post-capture job, then the four it queues. */
const SEQUENCE_JOBS = [paymentPostCaptureJob.name, ...LAST_JOBS];
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const RELAY_MS = process.env.BENCH_RELAY_MS ? Number(process.env.BENCH_RELAY_MS) : undefined;
const RELAY_LISTEN = process.env.BENCH_RELAY_LISTEN !== '0';
const LATENCY_RATE = Number(process.env.BENCH_LATENCY_RATE ?? 40);
const DB_NAME = process.env.BENCH_PAYMENTS_DATABASE ?? 'ordering_bench_payments';
const root = join(import.meta.dir, '..');

/**
 * bee-queue's raw rate: no-op jobs created in bulk and processed at CONCURRENCY. With the whole
 * machine's CPU time per job and the share of its cores busy meanwhile: a no-op job waits on Redis
 * round trips more than it computes, so its rate follows the machine's latency, the pipeline's its CPU.
 */
async function noopRate(redisUrl: string, redis: ReturnType<typeof createRedis>): Promise<{ rate: number; cpu: number; busy: number }> {
  const prefix = `bench-noop-${crypto.randomUUID().slice(0, 8)}`;
  const producer = createQueue('noop', redisUrl, { prefix });
  const worker = createQueue('noop', redisUrl, { prefix, isWorker: true });
  await Promise.all([producer.ready(), worker.ready()]);
  let done = 0;
  let resolveAll: () => void = () => {};
  const all = new Promise<void>((r) => (resolveAll = r));
  worker.process(CONCURRENCY, async () => {
    if (++done === NOOP_JOBS) resolveAll();
  });
  const m0 = machineBusyMs();
  const t0 = performance.now();
  const jobs = Array.from({ length: NOOP_JOBS }, (_, i) => producer.createJob({ job: 'noop', version: 1, payload: { i } as unknown }));
  await producer.saveAll(jobs);
  await all;
  const seconds = (performance.now() - t0) / 1000;
  const m1 = machineBusyMs();
  await Promise.all([producer.close(), worker.close()]);
  await deleteMatching(redis, `${prefix}:*`);
  const busyMs = m0 === null || m1 === null ? NaN : m1 - m0;
  return { rate: NOOP_JOBS / seconds, cpu: (busyMs * 1000) / NOOP_JOBS, busy: busyMs / (seconds * 1000 * navigator.hardwareConcurrency) };
}

/** Handlers instead of the worker's own (for the job structure alone). */
interface BenchHandlers {
  handlers: ReturnType<typeof createHandlers>;
  batchHandlers: Readonly<Record<string, (payloads: readonly unknown[]) => Promise<(Error | null)[]>>>;
}
type RunningBenchWorker = Awaited<ReturnType<typeof startWorker>>;

export async function runPostCaptureBench(): Promise<void> {
  const base = await resolveDatabase(process.env, root, () => {});
  const admin = new pg.Client({ connectionString: base.url });
  await admin.connect();
  await admin.query(`drop database if exists ${DB_NAME} with (force)`);
  await admin.query(`create database ${DB_NAME}`);
  await admin.end();
  const u = new URL(base.url);
  u.pathname = `/${DB_NAME}`;
  const h = createDatabase(u.toString(), { max: 20, applicationName: 'bench-payments' });
  // The worker's own pool, as \`bun run worker\` opens it (the setup and the captures use \`h\`), except that
  // its connections are kept between rounds: a worker under this load never leaves one idle for pg's 10 s,
  // and one closed between rounds made every measured round start new backends and plan every statement
  // again (each batch's statements planned on most of their executions, sixteenth session).
  const wh = createDatabase(u.toString(), { max: WORKER_DB_POOL, applicationName: 'bench-payments-worker', idleTimeoutMillis: 3_600_000 });
  await migrateAll(h.db);
  const redisUrl = await ensureRedis(process.env.REDIS_URL);
  const redis = createRedis(redisUrl, 'bench');
  const log = createLogger({ service: 'bench' }, (process.env.BENCH_LOG_LEVEL as 'debug' | undefined) ?? 'error');
  const seed = await seedDemo(h.db, { slug: 'bench-payments', reset: true, apiKey: 'bench-device-api-key-0123', pinPepper: 'bench-pin-pepper-0123456789' });
  const tdb = bindTenant(h.db, seed.merchant.tenant_database);
  // N transactions awaiting payment (the kiosk's create-intent result), one line each; their item's stock is tracked.
  const { ids, location, itemId } = await insertKioskOrders(tdb, seed, CAPTURES, 'Awaiting Payment');
  await tdb.insertInto('inventory_levels').values({ item_id: itemId, location_id: location, quantity: 1_000_000 }).execute();

  const deps = { tdb, tenantDatabase: seed.merchant.tenant_database, redis, providers: paymentProvidersFromEnv({}), log, now: () => new Date() };
  const capture = (id: string) => capturePayment(deps, id, { kind: 'webhook', outcome: 'succeeded', data: {} });
  const prefix = `bench-pc-${crypto.randomUUID().slice(0, 8)}`;
  const fiscal = createFiscalService(fiscalConfigFromEnv({ FISCAL_MASTER_KEY: 'bench-fiscal-master-key-0123456789abcdef' }), log);
  // Every register client configured; the bench location has no register, so each batch records none (nothing is sent).
  const registers = benchRegisters(wh.db);
  const startBenchWorker = (handlers?: BenchHandlers) =>
    startWorker({
      ...(handlers ?? {}),
      db: wh.db,
      redis,
      redisUrl,
      log,
      prefix,
      heartbeatMs: 3_600_000,
      fiscal,
      fiscalRecoverMs: 0,
      ...(RELAY_MS !== undefined ? { relayIntervalMs: RELAY_MS } : {}),
      relayListen: RELAY_LISTEN,
      concurrency: CONCURRENCY,
      payments: paymentProvidersFromEnv({}),
      registers,
    });
  // A sequence is done when its last job ran: all four jobs the capture's sequence queues here (no cart
  // session, not test mode, stock changed) have recorded their step, on whichever queue they ran.
  let polls = 0;
  const doneCount = async (set: readonly string[]) => {
    polls++;
    const r = await tdb.selectFrom('transaction_steps').select((e) => e.fn.countAll<string>().as('n')).where('step', 'in', LAST_STEPS).where('transaction_id', 'in', set).executeTakeFirstOrThrow();
    return Number(r.n);
  };
  const waitDone = async (set: readonly string[]) => {
    while ((await doneCount(set)) < set.length * LAST_STEPS.length) await Bun.sleep(5);
  };

  // Throughput, ROUNDS times: bee-queue's no-op rate, then a backlog of committed captures (their
  // post-capture jobs wait in the outbox) run by a freshly started worker to the last job of the last
  // sequence. Medians of the rounds; the ratio compares figures of the same run.
  //
  // A worker started with a backlog in the outbox, timed from a running worker to the moment `done`
  // reaches `target`, as bee-queue's clock starts with ready queues: while it starts, the backlog's
  // rows are held by a lock its relay skips (SKIP LOCKED), released at t0. Answers the seconds and the
  // CPU time per `per` (PostgreSQL backends, Redis, this process, the whole machine), read before the
  // worker's connections close (their backends' time goes with them).
  const drain = async (per: number, target: number, done: (w: RunningBenchWorker) => Promise<number>, handlers?: BenchHandlers) => {
    let cpu0 = { pg: null as number | null, redis: null as number | null, own: 0, machine: null as number | null };
    let t0 = 0;
    let lsn0 = 0n;
    let worker!: RunningBenchWorker;
    await h.db.transaction().execute(async (trx) => {
      await sql`select id from public.outbox where relayed_at is null for update`.execute(trx);
      worker = await startBenchWorker(handlers);
      while (!worker.relay.listening && RELAY_LISTEN) await Bun.sleep(5);
      // The processors' start-up housekeeping (the first failed-job purge of each queue) is a one-off, not throughput.
      await Promise.all(worker.processors.map((p) => p.housekeeping()));
      lsn0 = await walLsn();
      cpu0 = { pg: postgresCpuMs(DB_NAME), redis: processCpuMs('redis-server'), own: ownCpuMs(), machine: machineBusyMs() };
      t0 = performance.now();
    });
    worker.relay.trigger();
    // Every 5 ms: the poll runs in the worker's process and thread, so it costs the worker what it reads.
    while ((await done(worker)) < target) await Bun.sleep(5);
    const seconds = (performance.now() - t0) / 1000;
    if (process.env.BENCH_WINDOWS) console.error(`WINDOW ${handlers ? 'skeleton' : 'drain'} ${Math.round((performance.timeOrigin + t0) * 1000)} ${Math.round((performance.timeOrigin + performance.now()) * 1000)}`);
    const perUnit = (a: number | null, b: number | null) => (a === null || b === null ? NaN : ((b - a) * 1000) / per);
    const cpu = { pg: perUnit(cpu0.pg, postgresCpuMs(DB_NAME)), redis: perUnit(cpu0.redis, processCpuMs('redis-server')), own: perUnit(cpu0.own, ownCpuMs()), machine: perUnit(cpu0.machine, machineBusyMs()) };
    const lsn1 = await walLsn();
    if (process.env.BENCH_WINDOWS) console.error(`LSN ${lsnText(lsn0)} ${lsnText(lsn1)}`);
    return { seconds, cpu, worker, walBytes: Number(lsn1 - lsn0) / per };
  };
  // The server's WAL position as a byte offset: the drain's WAL (nothing else writes meanwhile), full-page images included.
  const walLsn = async () => {
    const [hi, lo] = (await sql<{ l: string }>`select pg_current_wal_lsn()::text as l`.execute(h.db)).rows[0]!.l.split('/');
    return (BigInt(`0x${hi}`) << 32n) + BigInt(`0x${lo}`);
  };
  const lsnText = (lsn: bigint) => `${(lsn >> 32n).toString(16).toUpperCase()}/${(lsn & 0xffffffffn).toString(16).toUpperCase()}`;
  const processedOf = (jobs: readonly string[]) => async (w: RunningBenchWorker) => (await Promise.all(jobs.map((j) => w.metrics.processedCount(j)))).reduce((a, b) => a + b, 0);

  // The ceiling the job structure sets: SKELETON sequences' outbox rows as the pipeline writes them (the
  // capture's post-capture row, then a batch's fan-out row of their four follow-up jobs each), through the same relay,
  // queues and processors (envelope checks, done markers), with handlers that do nothing.
  const tenant = { tenant_database: seed.merchant.tenant_database };
  const skeletonHandlers: BenchHandlers = {
    handlers: { ...createHandlers({ fiscal, clock: systemClock }), ...Object.fromEntries(SEQUENCE_JOBS.map((j) => [j, async () => {}])) },
    batchHandlers: Object.fromEntries(SEQUENCE_JOBS.map((j) => [j, async (ps: readonly unknown[]) => ps.map(() => null)])),
  };
  const skeletonRate = async (): Promise<{ rate: number; cpu: { pg: number; own: number; machine: number } }> => {
    const skeletonIds = ids.slice(0, SKELETON);
    const follow = (transaction_id: string) => [
      jobMessage(orderDispatchJob, { ...tenant, transaction_id }),
      jobMessage(statsDailyJob, { ...tenant, transaction_id }),
      jobMessage(paymentFinaliseJob, { ...tenant, transaction_id }),
      jobMessage(stockEdgeSyncJob, { ...tenant, transaction_id, location_id: location, item_ids: [itemId] }),
    ];
    // As the pipeline writes them: a row per capture, then one fan-out row per post-capture batch (paymentPostCaptureJob.batch).
    const batch = paymentPostCaptureJob.batch ?? 1;
    const rows = [
      ...skeletonIds.map((transaction_id) => jobMessage(paymentPostCaptureJob, { ...tenant, transaction_id, stock_changed: true })),
      ...Array.from({ length: Math.ceil(skeletonIds.length / batch) }, (_, b) => fanOut(skeletonIds.slice(b * batch, (b + 1) * batch).flatMap(follow))),
    ];
    await sql`insert into public.outbox (queue, job, payload) select r.queue, r.job, r.payload from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(queue text, job text, payload jsonb)`.execute(h.db);
    const { seconds, cpu, worker } = await drain(SKELETON, SKELETON * SEQUENCE_JOBS.length, processedOf(SEQUENCE_JOBS), skeletonHandlers);
    await stopWorker(worker);
    return { rate: SKELETON / seconds, cpu };
  };

  // Before each measurement: the bench database checkpointed, so the checkpointer (woken by the writes of
  // the step before) does not take a core inside either window; in the warm-up rounds also vacuumed and
  // analysed (plans over realistic statistics, not the empty tables of the start). Not in the measured
  // rounds: an analyse or a vacuum invalidates every cached plan of the tables it touches, so each measured
  // round began by planning all of the sequence's statements again on every worker connection, a cost a
  // long-running worker pays only when autovacuum analyses a table (which it still may here, as there).
  const quiesce = async (round: number) => {
    if (round < WARMUP) await sql`vacuum (analyze)`.execute(h.db);
    await sql`checkpoint`.execute(h.db);
  };
  const rounds: { noop: number; noopCpu: number; noopBusy: number; skeleton: number; skeletonCpu: number; rate: number; statements: number; captureRate: number; cpu: { pg: number; redis: number; own: number; machine: number }; walBytes: number }[] = [];
  for (let r = 0; r < WARMUP + ROUNDS; r++) {
    const set = ids.slice(r * PER_ROUND, (r + 1) * PER_ROUND);
    await quiesce(r);
    const { rate: noop, cpu: noopCpu, busy: noopBusy } = await noopRate(redisUrl, redis);
    await quiesce(r);
    const skeleton = await skeletonRate();
    // Measured rounds checkpoint before the captures, not between them and the drain: in production a
    // capture and its sequence run milliseconds apart, in one checkpoint cycle, so the rows the sequence
    // locks (its transactions) were written since the last checkpoint and take no full-page image again.
    if (r >= WARMUP) await quiesce(r);
    const c0 = performance.now();
    for (let i = 0; i < set.length; i += 8) await Promise.all(set.slice(i, i + 8).map(capture));
    const captureRate = set.length / ((performance.now() - c0) / 1000);
    if (r < WARMUP) await quiesce(r);
    const q0 = dbQueryCount();
    const p0 = polls;
    // Watched through the worker's own counters (no statement while the clock runs), then checked in the database.
    const { seconds, cpu, worker, walBytes } = await drain(set.length, set.length * LAST_JOBS.length, processedOf(LAST_JOBS));
    const statements = (dbQueryCount() - q0 - (polls - p0)) / set.length;
    await waitDone(set);
    await stopWorker(worker);
    if (r >= WARMUP) rounds.push({ noop, noopCpu, noopBusy, skeleton: skeleton.rate, skeletonCpu: skeleton.cpu.machine, rate: set.length / seconds, statements, captureRate, cpu, walBytes });
    console.log(
      `  ${r < WARMUP ? 'warm-up round (not counted)' : `round ${r + 1 - WARMUP}`}: ${set.length} sequences in ${fmt(seconds, 2)} s = ${fmt(set.length / seconds)} sequences/s; no-op ${fmt(noop)} jobs/s (${fmt(noopCpu, 0)} µs of machine CPU each, cores ${fmt(noopBusy * 100, 0)}% busy); ratio ${fmt(set.length / seconds / noop, 3)}; ` +
        `${fmt(statements)} statements/sequence; job structure alone ${fmt(skeleton.rate)} sequences/s (CPU µs/sequence: PostgreSQL ${fmt(skeleton.cpu.pg, 0)}, worker ${fmt(skeleton.cpu.own, 0)}, whole machine ${fmt(skeleton.cpu.machine, 0)}); CPU µs/sequence: PostgreSQL backends ${fmt(cpu.pg, 0)}, worker ${fmt(cpu.own, 0)}, Redis ${fmt(cpu.redis, 0)}, whole machine ${fmt(cpu.machine, 0)}; WAL ${fmt(walBytes, 0)} bytes/sequence`,
    );
  }

  // Latency: captures arrive as webhooks would, paced at LATENCY_RATE a second (below the worker's
  // throughput, so the figure is latency, not queueing behind a backlog), on an idle, drained worker.
  const latencyIds = ids.slice((WARMUP + ROUNDS) * PER_ROUND);
  // Live captures cost the machine a capture and a sequence each: paced at half of what it sustained
  // for both in this run (at most LATENCY_RATE), so a loaded machine measures latency, not a backlog.
  const medOf = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const sustained = 1 / (1 / medOf(rounds.map((r) => r.captureRate)) + 1 / medOf(rounds.map((r) => r.rate)));
  const pace = Math.max(1, Math.min(LATENCY_RATE, sustained / 2));
  const worker = await startBenchWorker();
  while (!worker.relay.listening && RELAY_LISTEN) await Bun.sleep(5);
  const captured = new Map<string, number>();
  const inflight: Promise<void>[] = [];
  const b0 = performance.now();
  for (let i = 0; i < latencyIds.length; i++) {
    const due = b0 + (i * 1000) / pace;
    const wait = due - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    const id = latencyIds[i]!;
    inflight.push(capture(id).then(() => void captured.set(id, Date.now())));
  }
  await Promise.all(inflight);
  await waitDone(latencyIds);
  await stopWorker(worker);
  await deleteMatching(redis, `${prefix}:*`);

  const kitchen = await tdb.selectFrom('kitchen_items').select(['transaction_id', 'created_at']).where('transaction_id', 'in', latencyIds).execute();
  const lat = kitchen.map((k) => k.created_at.getTime() - captured.get(k.transaction_id)!).sort((a, b) => a - b);
  // Where the latency goes: capture commit -> relayed to bee-queue -> job started (its re-read step) -> kitchen documents.
  const ob = await h.db.selectFrom('outbox').select(['payload', 'relayed_at']).where('job', '=', 'payment.post-capture').execute();
  const relayedAt = new Map(ob.map((r) => [(r.payload as { transaction_id: string }).transaction_id, r.relayed_at?.getTime() ?? NaN]));
  const rereads = await tdb.selectFrom('transaction_steps').select(['transaction_id', 'at']).where('step', '=', 'reread').where('transaction_id', 'in', latencyIds).execute();
  const rereadAt = new Map(rereads.map((r) => [r.transaction_id, r.at.getTime()]));
  const part = (f: (id: string, kitchenAt: number) => number) => kitchen.map((k) => f(k.transaction_id, k.created_at.getTime())).sort((a, b) => a - b);
  const toRelay = part((id) => relayedAt.get(id)! - captured.get(id)!);
  const toJob = part((id) => rereadAt.get(id)! - relayedAt.get(id)!);
  const toKitchen = part((id, at) => at - rereadAt.get(id)!);
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const rate = med(rounds.map((r) => r.rate));
  const noop = med(rounds.map((r) => r.noop));
  const ratio = med(rounds.map((r) => r.rate / r.noop));
  console.log(
    `post-capture through the worker (median of ${ROUNDS} rounds of ${PER_ROUND}): ${fmt(rate)} sequences/s (${fmt(rate * JOBS_PER_SEQUENCE)} jobs/s, ${fmt(med(rounds.map((r) => r.statements)))} statements/sequence); ` +
      `bee-queue no-op: ${fmt(noop)} jobs/s; ratio ${fmt(ratio, 3)} sequences per no-op job (goal >= 0.3), ${fmt(ratio * JOBS_PER_SEQUENCE, 3)} jobs per no-op job`,
  );
  // The spread is part of the figure: a median near the goal means little when the rounds straddle it.
  const ratios = rounds.map((r) => r.rate / r.noop);
  console.log(`ratio per round: ${fmt(Math.min(...ratios), 3)} to ${fmt(Math.max(...ratios), 3)}; ${ratios.filter((x) => x >= 0.3).length} of ${ratios.length} rounds at 0.3 or more`);
  const skeleton = med(rounds.map((r) => r.skeleton));
  console.log(
    `ceiling of the job structure: the same ${JOBS_PER_SEQUENCE} jobs per sequence in its outbox rows (one per capture, one fan-out row per batch) through the same relay, queues and processors, handlers doing nothing: ` +
      `${fmt(skeleton)} sequences/s (${fmt(med(rounds.map((r) => r.skeletonCpu)), 0)} µs of machine CPU each), ratio ${fmt(med(rounds.map((r) => r.skeleton / r.noop)), 3)} of bee-queue's no-op rate; the handlers' work takes the rest`,
  );
  // Where the machine's time goes: CPU time per sequence varies far less than wall time on shared cores.
  const cpuPg = med(rounds.map((r) => r.cpu.pg));
  const cpuOwn = med(rounds.map((r) => r.cpu.own));
  const cpuRedis = med(rounds.map((r) => r.cpu.redis));
  const cpuMachine = med(rounds.map((r) => r.cpu.machine));
  const busy = med(rounds.map((r) => (r.cpu.machine * r.rate) / 1e6 / navigator.hardwareConcurrency));
  const cores = navigator.hardwareConcurrency;
  console.log(
    `CPU time per sequence (medians): PostgreSQL backends ${fmt(cpuPg, 0)} µs, worker process ${fmt(cpuOwn, 0)} µs, Redis ${fmt(cpuRedis, 0)} µs, the whole machine ${fmt(cpuMachine, 0)} µs ` +
      `(its ${cores} cores ${fmt(busy * 100, 0)}% busy while the clock ran); all ${cores} cores busy would allow ${fmt((cores * 1e6) / cpuMachine)} sequences/s, the worker's one JavaScript thread ${fmt(1e6 / cpuOwn)}`,
  );
  // The same comparison in CPU time, which the machine's latency moves far less than rates.
  const noopCpu = med(rounds.map((r) => r.noopCpu));
  console.log(
    `bee-queue no-op job (medians): ${fmt(noopCpu, 0)} µs of machine CPU, cores ${fmt(med(rounds.map((r) => r.noopBusy)) * 100, 0)}% busy; ` +
      `a sequence costs the machine as much CPU as ${fmt(med(rounds.map((r) => r.cpu.machine / r.noopCpu)), 2)} no-op jobs (0.3 at equal use of the cores means at most ${fmt(1 / 0.3, 2)})`,
  );
  console.log(`WAL per sequence (median): ${fmt(med(rounds.map((r) => r.walBytes)), 0)} bytes, full-page images included`);
  console.log(`captures: ${fmt(med(rounds.map((r) => r.captureRate)))} captures/s (8 at a time, one location's receipt counter)`);
  console.log(
    `capture -> kitchen document (${latencyIds.length} live captures at ${fmt(pace)}/s): p50 ${fmt(percentile(lat, 50))} ms, p99 ${fmt(percentile(lat, 99))} ms, max ${fmt(lat.at(-1) ?? NaN)} ms ` +
      `(goal p99 < 150 ms; relay ${RELAY_LISTEN ? 'woken by NOTIFY, ' : ''}poll ${RELAY_MS ?? 250} ms, concurrency ${CONCURRENCY} per queue)`,
  );
  console.log(
    `  p50/p99 ms: capture returned -> relayed ${fmt(percentile(toRelay, 50))}/${fmt(percentile(toRelay, 99))}, relayed -> job started ${fmt(percentile(toJob, 50))}/${fmt(percentile(toJob, 99))}, ` +
      `job started -> kitchen documents ${fmt(percentile(toKitchen, 50))}/${fmt(percentile(toKitchen, 99))}`,
  );
  redis.disconnect();
  await wh.close();
  await h.close();
  await base.stop();
}
