/**
 * Post-capture throughput through the worker (issue 12 point 10): N kiosk transactions captured
 * in-process (the capture commit writes the post-capture job to the outbox), the real worker (outbox
 * relay, bee-queue processors, the payment handlers) runs every sequence to its last job. Beside it,
 * in the same run and on the same Redis, bee-queue's raw rate of no-op jobs at the same concurrency.
 * Prints sequences/s against no-op jobs/s (goal: at least 0.3) and the capture-to-kitchen-document
 * latency p50/p99 (goal: p99 under 150 ms).
 *
 * Env: BENCH_CAPTURES (500: half for throughput, half for latency), BENCH_NOOP_JOBS (2000),
 * BENCH_CONCURRENCY (16 jobs at once per queue, for both),
 * BENCH_RELAY_MS (10, the relay's idle poll), BENCH_LATENCY_RATE (40 captures a second in the latency
 * phase), BENCH_PAYMENTS_DATABASE (ordering_bench_payments).
 */
import { join } from 'node:path';
import pg from 'pg';
import { bindTenant, createDatabase, migrateAll, resolveDatabase } from '@pos/db';
import { createLogger, createRedis, ensureRedis } from '@pos/kernel';
import { createQueue } from '@pos/kernel/queues/index';
import { seedDemo } from '@pos/core/seed/demo-seed';
import { capturePayment } from '@pos/core/payments/capture-payment';
import { paymentProvidersFromEnv } from '@pos/core/payments/payment-providers';
import { createFiscalService } from '@pos/core/fiscal/fiscal-service';
import { fiscalConfigFromEnv } from '@pos/core/fiscal/fiscal-config';
import { startWorker, stopWorker } from '../services/worker/src/worker.ts';
import { fmt, percentile } from './stats.ts';

const CAPTURES = Number(process.env.BENCH_CAPTURES ?? 500);
const NOOP_JOBS = Number(process.env.BENCH_NOOP_JOBS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const RELAY_MS = Number(process.env.BENCH_RELAY_MS ?? 10);
const LATENCY_RATE = Number(process.env.BENCH_LATENCY_RATE ?? 40);
const DB_NAME = process.env.BENCH_PAYMENTS_DATABASE ?? 'ordering_bench_payments';
const root = join(import.meta.dir, '..');

async function scanDelete(redis: ReturnType<typeof createRedis>, prefix: string) {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/** bee-queue's raw rate: no-op jobs created in bulk and processed at CONCURRENCY. */
async function noopRate(redisUrl: string, redis: ReturnType<typeof createRedis>): Promise<number> {
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
  const t0 = performance.now();
  const jobs = Array.from({ length: NOOP_JOBS }, (_, i) => producer.createJob({ job: 'noop', version: 1, payload: { i } as unknown }));
  await producer.saveAll(jobs);
  await all;
  const seconds = (performance.now() - t0) / 1000;
  await Promise.all([producer.close(), worker.close()]);
  await scanDelete(redis, prefix);
  return NOOP_JOBS / seconds;
}

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
  await migrateAll(h.db);
  const redisUrl = await ensureRedis(process.env.REDIS_URL);
  const redis = createRedis(redisUrl, 'bench');
  const log = createLogger({ service: 'bench' }, 'error');
  const seed = await seedDemo(h.db, { slug: 'bench-payments', reset: true, apiKey: 'bench-device-api-key-0123', pinPepper: 'bench-pin-pepper-0123456789' });
  const tdb = bindTenant(h.db, seed.merchant.tenant_database);
  const location = seed.locations[0]!.id;
  const item = seed.items[0]!;
  await tdb.insertInto('inventory_levels').values({ item_id: item.id, location_id: location, quantity: 1_000_000 }).execute();

  // N transactions awaiting payment (the kiosk's create-intent result), one line each.
  const now = Date.now();
  const ids: string[] = [];
  for (let i = 0; i < CAPTURES; i += 250) {
    const chunk = Array.from({ length: Math.min(250, CAPTURES - i) }, (_, k) => ({ id: Bun.randomUUIDv7(), n: i + k }));
    await tdb
      .insertInto('transactions')
      .values(
        chunk.map((c) => ({
          id: c.id,
          location_id: location,
          device_id: seed.kiosk.device_id,
          channel: 'kiosk' as const,
          order_no: c.n + 1,
          status: 'Awaiting Payment' as const,
          order_status: null,
          payment_provider: 'card-b' as const,
          payment_snapshot: JSON.stringify({ provider: 'card-b' }),
          idempotency_key: `idemp_${seed.kiosk.device_id}_${now + c.n}`,
          all_idempotency_keys: [`idemp_${seed.kiosk.device_id}_${now + c.n}`],
          receipt_no: null,
          subtotal: item.unit_price,
          discount: 0,
          vat: 0,
          total: item.unit_price,
          by_vat_rate: JSON.stringify([]),
          offers: JSON.stringify([]),
          menu_version: 1,
          customer_id: null,
          loyalty_token: null,
          cart_session_id: null,
          created_at: new Date(),
          updated_at: new Date(),
        })),
      )
      .execute();
    await tdb
      .insertInto('transaction_lines')
      .values(chunk.map((c) => ({ transaction_id: c.id, position: 0, item_id: item.id, category_id: null, name: item.name, qty: 1, unit_price: item.unit_price, vat_rate: item.vat_rate, gross: item.unit_price, discount: 0, total: item.unit_price, modifiers: JSON.stringify([]), variant: null })))
      .execute();
    ids.push(...chunk.map((c) => c.id));
  }

  const noop = await noopRate(redisUrl, redis);

  const deps = { tdb, tenantDatabase: seed.merchant.tenant_database, redis, providers: paymentProvidersFromEnv({}), log, now: () => new Date() };
  const capture = (id: string) => capturePayment(deps, id, { kind: 'webhook', outcome: 'succeeded', data: {} });
  const throughputIds = ids.slice(0, Math.floor(ids.length / 2));
  const latencyIds = ids.slice(throughputIds.length);

  // Phase A, throughput: the captures are committed first (their post-capture jobs wait in the
  // outbox), then the worker starts and runs every sequence to its last job.
  const c0 = performance.now();
  for (let i = 0; i < throughputIds.length; i += 8) await Promise.all(throughputIds.slice(i, i + 8).map(capture));
  const captureRate = throughputIds.length / ((performance.now() - c0) / 1000);
  const prefix = `bench-pc-${crypto.randomUUID().slice(0, 8)}`;
  const t0 = performance.now();
  const worker = await startWorker({
    db: h.db,
    redis,
    redisUrl,
    log,
    prefix,
    heartbeatMs: 3_600_000,
    fiscal: createFiscalService(fiscalConfigFromEnv({ FISCAL_MASTER_KEY: 'bench-fiscal-master-key-0123456789abcdef' }), log),
    fiscalRecoverMs: 0,
    relayIntervalMs: RELAY_MS,
    concurrency: CONCURRENCY,
    payments: paymentProvidersFromEnv({}),
  });
  const finalised = async (set: readonly string[]) =>
    Number((await tdb.selectFrom('transaction_steps').select((e) => e.fn.countAll<string>().as('n')).where('step', '=', 'finalise').where('transaction_id', 'in', set).executeTakeFirstOrThrow()).n);
  while ((await finalised(throughputIds)) < throughputIds.length) await Bun.sleep(5);
  const seconds = (performance.now() - t0) / 1000;

  // Phase B, latency: captures arrive as webhooks would, paced at LATENCY_RATE a second (below the
  // worker's throughput, so the figure is latency, not queueing behind a backlog).
  const captured = new Map<string, number>();
  const inflight: Promise<void>[] = [];
  const b0 = performance.now();
  for (let i = 0; i < latencyIds.length; i++) {
    const due = b0 + (i * 1000) / LATENCY_RATE;
    const wait = due - performance.now();
    if (wait > 0) await Bun.sleep(wait);
    const id = latencyIds[i]!;
    inflight.push(capture(id).then(() => void captured.set(id, Date.now())));
  }
  await Promise.all(inflight);
  while ((await finalised(latencyIds)) < latencyIds.length) await Bun.sleep(5);
  await stopWorker(worker);
  await scanDelete(redis, prefix);

  const kitchen = await tdb.selectFrom('kitchen_items').select(['transaction_id', 'created_at']).where('transaction_id', 'in', latencyIds).execute();
  const lat = kitchen.map((k) => k.created_at.getTime() - captured.get(k.transaction_id)!).sort((a, b) => a - b);
  const rate = throughputIds.length / seconds;
  console.log(`post-capture through the worker: ${throughputIds.length} sequences (6 jobs each) in ${fmt(seconds, 2)} s = ${fmt(rate)} sequences/s (${fmt(rate * 6)} jobs/s); bee-queue no-op: ${fmt(noop)} jobs/s; ratio ${fmt(rate / noop, 3)} sequences per no-op job (goal >= 0.3), ${fmt((rate * 6) / noop, 3)} jobs per no-op job`);
  console.log(`captures: ${fmt(captureRate)} captures/s (8 at a time, one location's receipt counter)`);
  console.log(`capture -> kitchen document (${latencyIds.length} live captures at ${LATENCY_RATE}/s): p50 ${fmt(percentile(lat, 50))} ms, p99 ${fmt(percentile(lat, 99))} ms (goal p99 < 150 ms; relay idle poll ${RELAY_MS} ms, concurrency ${CONCURRENCY} per queue)`);
  redis.disconnect();
  await h.close();
  await base.stop();
}
