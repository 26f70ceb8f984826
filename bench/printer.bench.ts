/**
 * The printer poll service (issue 15), as its own process over HTTP against a fresh database:
 * 1. the idle poll (a paired printer with nothing to print: token check, throttle, one-statement
 *    lease query) beside the same service's bare route (`GET /health`, answered from its cache), at
 *    the same concurrency, in the same run; the goal is an idle-poll rate of at least 0.3 of the bare one;
 * 2. 10,000 simulated printers polling every 5 s (an open-loop schedule, 2,000 polls/s offered):
 *    polls/s achieved, latency p50/p99, failures, and how far behind schedule the polls ran.
 *
 * Env: BENCH_CLIENTS (16 concurrent), BENCH_REQUESTS (250 per client), BENCH_PRINTERS (10000),
 * BENCH_PRINTER_SECONDS (15), BENCH_PRINTER_PORT (3593), BENCH_DATABASE (+ `_printer`).
 */
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { bindTenant, createDatabase, migrateAll } from '@pos/db';
import { seedDemo } from '@pos/core/seed/demo-seed';
import { hashPrinterToken } from '@pos/core/printers/printer-tokens';
import { freshBenchDatabase } from './bench-database.ts';
import { BENCH_SECRETS } from './bench-api.ts';
import { fmt, percentile } from './stats.ts';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 250);
const PRINTERS = Number(process.env.BENCH_PRINTERS ?? 10_000);
const SECONDS = Number(process.env.BENCH_PRINTER_SECONDS ?? 15);
const INTERVAL_MS = 5000;
const PORT = Number(process.env.BENCH_PRINTER_PORT ?? 3593);
const root = join(import.meta.dir, '..');

async function closedLoop(send: (i: number) => Promise<Response>): Promise<{ rps: number; p50: number; p99: number; failures: number }> {
  for (let i = 0; i < 20; i++) await (await send(i)).arrayBuffer();
  const latencies: number[] = [];
  let failures = 0;
  let n = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let k = 0; k < REQUESTS; k++) {
        const s = performance.now();
        const r = await send(n++);
        await r.arrayBuffer();
        latencies.push(performance.now() - s);
        if (r.status !== 200) failures++;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const sorted = latencies.sort((a, b) => a - b);
  return { rps: latencies.length / seconds, p50: percentile(sorted, 50), p99: percentile(sorted, 99), failures };
}

export async function runPrinterBench(): Promise<void> {
  const bench = await freshBenchDatabase(root, '_printer');
  const h = createDatabase(bench.url, { max: 4 });
  await migrateAll(h.db);
  const seed = await seedDemo(h.db, { slug: 'bench-printer', reset: true, apiKey: BENCH_SECRETS.DEVICE_API_KEY, pinPepper: BENCH_SECRETS.PIN_PEPPER });
  const tdb = bindTenant(h.db, seed.merchant.tenant_database);
  const location = seed.locations[0]!.id;
  // PRINTERS paired receipt printers, each with its own token (stored as its hash), in batches.
  const tokens: string[] = [];
  for (let start = 0; start < PRINTERS; start += 1000) {
    const batch = Array.from({ length: Math.min(1000, PRINTERS - start) }, (_, k) => {
      const i = start + k;
      const id = crypto.randomUUID();
      const token = `prt_${randomBytes(24).toString('base64url')}`;
      tokens.push(token);
      const mac = [0x00, 0x11, (i >> 24) & 0xff, (i >> 16) & 0xff, (i >> 8) & 0xff, i & 0xff].map((b) => b.toString(16).padStart(2, '0')).join(':').toUpperCase();
      return { id, token, mac };
    });
    await tdb
      .insertInto('printers')
      .values(batch.map((b) => ({ id: b.id, location_id: location, mac: b.mac, state: 'paired' as const, name: 'Bench', token_issued_at: new Date(), last_reported_at: new Date(), created_at: new Date(), updated_at: new Date() })))
      .execute();
    await h.db
      .insertInto('printer_tokens')
      .values(batch.map((b) => ({ token_hash: hashPrinterToken(b.token), merchant_id: seed.merchant.id, tenant_database: seed.merchant.tenant_database, printer_id: b.id })))
      .execute();
  }
  await h.close();

  const svc = Bun.spawn(['bun', 'services/printer-poll/src/main.ts'], {
    cwd: root,
    env: { ...process.env, ...BENCH_SECRETS, APP_ENV: process.env.BENCH_PRINTER_APP_ENV ?? 'test', DATABASE_URL: bench.url, PRINTER_POLL_PORT: String(PORT), LOG_LEVEL: 'error' },
    stdout: 'ignore',
    stderr: 'inherit',
  });
  try {
    for (let i = 0; ; i++) {
      if (await fetch(`http://127.0.0.1:${PORT}/health`).then((r) => r.ok, () => false)) break;
      if (i > 100 || svc.exitCode !== null) throw new Error('printer-poll did not start');
      await Bun.sleep(100);
    }
    const sdp = `http://127.0.0.1:${PORT}/print/printer-a/sdp`;
    const form = 'ConnectionType=GetRequest&ID=local_printer';
    const poll = (i: number) => fetch(`${sdp}?token=${tokens[i % tokens.length]}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });

    // Steady state: every printer has polled once (its token and its empty queue are then known to
    // the service, as for printers that poll all day). Timed separately: the cold first polls.
    const tw = performance.now();
    for (let start = 0; start < tokens.length; start += 200) await Promise.all(Array.from({ length: Math.min(200, tokens.length - start) }, (_, k) => poll(start + k).then((r) => r.arrayBuffer())));
    const warmSeconds = (performance.now() - tw) / 1000;

    const bare = await closedLoop(() => fetch(`http://127.0.0.1:${PORT}/health`));
    // 1,000 printers in turn: each stays well under its 120-a-minute throttle.
    const idle = await closedLoop((i) => poll(i % 1000));
    const ratio = idle.rps / bare.rps;
    console.log(`printer: ${CLIENTS} clients x ${REQUESTS} requests`);
    console.log(`  bare route GET /health      ${fmt(bare.rps, 0)} req/s  p50 ${fmt(bare.p50, 2)} ms  p99 ${fmt(bare.p99, 2)} ms  failures ${bare.failures}`);
    console.log(`  idle poll (GetRequest)      ${fmt(idle.rps, 0)} req/s  p50 ${fmt(idle.p50, 2)} ms  p99 ${fmt(idle.p99, 2)} ms  failures ${idle.failures}`);
    console.log(`  ratio idle poll / bare      ${fmt(ratio, 2)} (goal >= 0.30: ${ratio >= 0.3 ? 'met' : 'NOT met'})`);
    console.log(`  first (cold) poll of each of ${tokens.length} printers: ${fmt(tokens.length / warmSeconds, 0)} polls/s`);

    // Open loop: printer i polls at phase i/PRINTERS of the interval, every 5 s, for SECONDS.
    const latencies: number[] = [];
    let failures = 0;
    let lagMax = 0;
    let sent = 0;
    const pending: Promise<void>[] = [];
    const t0 = performance.now();
    const total = Math.floor((SECONDS * 1000 * PRINTERS) / INTERVAL_MS);
    while (sent < total) {
      const now = performance.now() - t0;
      while (sent < total) {
        const due = (sent * INTERVAL_MS) / PRINTERS;
        if (due > now) break;
        const i = sent++;
        lagMax = Math.max(lagMax, now - due);
        const s = performance.now();
        pending.push(
          poll(i).then(
            async (r) => {
              await r.arrayBuffer();
              latencies.push(performance.now() - s);
              if (r.status !== 200) failures++;
            },
            () => {
              failures++;
            },
          ),
        );
      }
      await Bun.sleep(5);
    }
    await Promise.all(pending);
    const seconds = (performance.now() - t0) / 1000;
    const sorted = latencies.sort((a, b) => a - b);
    const offered = PRINTERS / (INTERVAL_MS / 1000);
    console.log(`printer: ${PRINTERS} printers polling every ${INTERVAL_MS / 1000} s for ${SECONDS} s (${fmt(offered, 0)} polls/s offered)`);
    console.log(`  achieved ${fmt(latencies.length / seconds, 0)} polls/s  p50 ${fmt(percentile(sorted, 50), 1)} ms  p99 ${fmt(percentile(sorted, 99), 1)} ms  failures ${failures}  schedule lag max ${fmt(lagMax, 0)} ms`);
  } finally {
    svc.kill();
    await svc.exited;
    await bench.stop();
  }
}
