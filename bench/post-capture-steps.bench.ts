/**
 * Where a post-capture sequence's CPU goes, step by step (`bun run bench post-capture-steps`; not part of
 * the whole `bun run bench`): the batch steps the worker's handlers run, called one after another on one
 * connection, for batches of captured one-line kiosk orders, with every register client configured as the
 * `post-capture` bench has them (the location has no register). Around each step it reads the CPU time of
 * the connection's PostgreSQL backend (/proc, so the server must run on this machine) and of this process
 * (user and system: the driver's socket work, garbage collection). Beside them, measured in the same run,
 * the cost of one round trip of a prepared `select 1`: a step's figure per batch reads as so many round
 * trips. The end-to-end `post-capture` bench mixes every step with the queues and with concurrency; this
 * one tells which step a change made cheaper (found the per-batch register lookups, twentieth session).
 * It calls the steps the handlers call (`payments.handlers.ts`): keep the two in step.
 *
 * Env: BENCH_STEP_BATCH (100: the rows of a full batch job), BENCH_STEP_BATCHES (60, after 10 uncounted),
 * BENCH_STEPS_DATABASE suffix of the bench database.
 */
import { join } from 'node:path';
import { sql } from 'kysely';
import { bindTenant, createDatabase, migrateAll, TenantStatement } from '@pos/db';
import { seedDemo } from '@pos/core/seed/demo-seed';
import {
  addManyToDailyStats,
  defaultFinaliseSteps,
  dispatchOrdersToRegister,
  finalisePayments,
  printOrderReceipt,
  queuePostCaptureJobs,
  recordSteps,
  rereadTransactions,
  writeKitchenItems,
  writeKitchenTickets,
  type CapturedOrder,
} from '@pos/core/payments/post-capture';
import { freshBenchDatabase } from './bench-database.ts';
import { pidCpuMs } from './process-cpu.ts';
import { fmt } from './stats.ts';
import { benchRegisters, insertKioskOrders } from './kiosk-orders.ts';

const BATCH = Number(process.env.BENCH_STEP_BATCH ?? 100);
const BATCHES = Number(process.env.BENCH_STEP_BATCHES ?? 60);
const WARMUP = 10;
const root = join(import.meta.dir, '..');

export async function runPostCaptureStepsBench(): Promise<void> {
  const { url, stop } = await freshBenchDatabase(root, process.env.BENCH_STEPS_DATABASE ?? '_steps');
  // One connection: every statement of the run goes to the backend whose CPU is read.
  const h = createDatabase(url, { max: 1, applicationName: 'bench-post-capture-steps' });
  await migrateAll(h.db);
  const seed = await seedDemo(h.db, { slug: 'bench-steps', reset: true, apiKey: 'bench-steps-api-key-0123', pinPepper: 'bench-steps-pin-pepper-01234567' });
  const tenant = seed.merchant.tenant_database;
  const tdb = bindTenant(h.db, tenant);
  // Captured kiosk orders (Complete, with their receipt numbers), one line each.
  const { ids } = await insertKioskOrders(tdb, seed, (WARMUP + BATCHES) * BATCH, 'Complete');
  await sql`vacuum (analyze)`.execute(h.db);
  await sql`checkpoint`.execute(h.db);

  const pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(h.db)).rows[0]!.pid;
  const registers = { deps: benchRegisters(h.db), tenantDatabase: tenant };

  type Cost = { pg: number; user: number; system: number };
  const costs = new Map<string, Cost>();
  let counting = false;
  const step = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    const p0 = pidCpuMs(pid);
    const c0 = process.cpuUsage();
    const r = await run();
    const c = process.cpuUsage(c0);
    const p1 = pidCpuMs(pid);
    if (counting) {
      const k = costs.get(name) ?? { pg: 0, user: 0, system: 0 };
      k.pg += p0 === null || p1 === null ? NaN : p1 - p0;
      k.user += c.user / 1000;
      k.system += c.system / 1000;
      costs.set(name, k);
    }
    return r;
  };

  // The baseline: one round trip of a prepared statement through the same pool and connection.
  const one = new TenantStatement<{ one: number }>('bench_steps_one', 'select 1 as one');
  const roundTrips = 20_000;
  for (let i = 0; i < 1000; i++) await one.execute(tdb, []);
  counting = true;
  await step('round trip', async () => {
    for (let i = 0; i < roundTrips; i++) await one.execute(tdb, []);
  });
  const rt = costs.get('round trip')!;
  costs.clear();
  counting = false;

  for (let b = 0; b < WARMUP + BATCHES; b++) {
    // The tables the steps write were empty when the statements were first planned: planned again over
    // their statistics once they hold rows (an analyse invalidates the plans), as in a running worker.
    if (b === WARMUP / 2) await sql`vacuum (analyze)`.execute(h.db);
    counting = b >= WARMUP;
    const set = ids.slice(b * BATCH, (b + 1) * BATCH);
    // The post-capture job (`runPostCaptureMany`): re-read, the PaymentCaptured listeners, the follow-up jobs.
    const read = await step('re-read', () => rereadTransactions(tdb, set));
    const orders = set.map((id) => ({ ...(read.get(id) as CapturedOrder), stockChanged: true }));
    await step('kitchen items', () => writeKitchenItems(tdb, orders));
    await step('kitchen tickets', () => writeKitchenTickets(tdb, orders));
    await step('receipts', () => printOrderReceipt(tdb, orders));
    await step('queue jobs', () => queuePostCaptureJobs(tdb, tenant, orders));
    // The four follow-up jobs.
    await step('register dispatch', () => dispatchOrdersToRegister(tdb, set, registers));
    await step('daily stats', () => addManyToDailyStats(tdb, set));
    await step('finalisation', () => finalisePayments(tdb, set, defaultFinaliseSteps(tdb)));
    await step('edge stock sync', () => recordSteps(tdb, set.map((id) => ({ transaction_id: id, step: 'edge_stock_sync', outcome: 'no_edge_devices', detail: '1 item(s) changed' }))));
  }

  const n = BATCHES * BATCH;
  const us = (ms: number, per: number) => (ms * 1000) / per;
  const rtCost = us(rt.pg + rt.user + rt.system, roundTrips);
  console.log(`post-capture steps (${BATCHES} batches of ${BATCH} one-line kiosk orders, one connection, every register client configured, no register):`);
  console.log(
    `  baseline, a prepared round trip: PostgreSQL backend ${fmt(us(rt.pg, roundTrips))} µs, this process ${fmt(us(rt.user, roundTrips))} user + ${fmt(us(rt.system, roundTrips))} system µs`,
  );
  let sum: Cost = { pg: 0, user: 0, system: 0 };
  for (const [name, c] of costs) {
    sum = { pg: sum.pg + c.pg, user: sum.user + c.user, system: sum.system + c.system };
    console.log(
      `  ${name.padEnd(18)} per sequence: PostgreSQL ${fmt(us(c.pg, n)).padStart(6)} µs, process ${fmt(us(c.user, n)).padStart(6)} user + ${fmt(us(c.system, n)).padStart(5)} system µs; per batch ${fmt(us(c.pg + c.user + c.system, BATCHES) / rtCost)} round trips' worth`,
    );
  }
  console.log(`  ${'all steps'.padEnd(18)} per sequence: PostgreSQL ${fmt(us(sum.pg, n))} µs, process ${fmt(us(sum.user, n))} user + ${fmt(us(sum.system, n))} system µs = ${fmt(us(sum.pg + sum.user + sum.system, n) / rtCost, 2)} round trips' worth`);
  await h.close();
  await stop();
}
