/**
 * Settle throughput and latency: N concurrent simulated registers (spread over L locations, each with
 * its own fiscal enrolment) settle separate orders against the real API process over HTTP. Beside it, a
 * baseline measured in the same run: single-row update transactions on the same database through the
 * same driver (Kysely over pg), with the same concurrency. Prints p50, p99 and the ratio.
 *
 * Env: BENCH_REGISTERS (32), BENCH_LOCATIONS (8), BENCH_ORDERS (20 per register), BENCH_PORT (3590),
 * BENCH_DATABASE (database name, default ordering_bench),
 * BENCH_API_FLAGS (extra bun flags for the API process, e.g. "--cpu-prof --cpu-prof-md --cpu-prof-dir=/tmp/p").
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { bindTenant, createDatabase, migrateAll } from '@pos/db';
import { freshBenchDatabase } from './bench-database.ts';
import { BENCH_SECRETS, startBenchApi } from './bench-api.ts';
import { seedDemo } from '@pos/core/seed/demo-seed';
import { createTokenService } from '../services/api/src/plugins/tokens.ts';
import { fmt, percentile } from './stats.ts';

const REGISTER_COUNTS = (process.env.BENCH_REGISTERS ?? '8,32,64').split(',').map(Number);
const PROCESS_COUNTS = (process.env.BENCH_PROCESSES ?? '1,2').split(',').map(Number);
const LOCATIONS = Number(process.env.BENCH_LOCATIONS ?? 8);
const ORDERS = Number(process.env.BENCH_ORDERS ?? 20);
const PORT = Number(process.env.BENCH_PORT ?? 3590);
const root = join(import.meta.dir, '..');
const SECRETS = BENCH_SECRETS;

interface SettleFigures {
  registers: number;
  processes: number;
  settles: number;
  failures: number;
  perSecond: number;
  p50: number;
  p99: number;
  roundTrips: number;
  apiCpuMs: number;
  getsPerSecond: number;
  getP99: number;
  getCpuMs: number;
  rssMb: number;
  baselineTps: number;
}

/** Every (registers, processes) pair on a fresh database, then one table. */
export async function runSettleBench(): Promise<void> {
  const rows: SettleFigures[] = [];
  for (const registers of REGISTER_COUNTS) for (const processes of PROCESS_COUNTS) rows.push(await runOnce(registers, processes));
  console.log(`settle (${LOCATIONS} locations, ${ORDERS} settles per register; baseline = single-row update transactions, same database, driver and concurrency, measured in the same run):`);
  console.log('  registers  processes  settles/s     p50 ms     p99 ms  trips/settle  API CPU ms/settle  API RSS MB  baseline tx/s   ratio  failed');
  for (const r of rows) {
    console.log(
      `  ${String(r.registers).padStart(9)}  ${String(r.processes).padStart(9)}  ${fmt(r.perSecond).padStart(9)}  ${fmt(r.p50).padStart(9)}  ${fmt(r.p99).padStart(9)}  ${(Number.isNaN(r.roundTrips) ? 'n/a' : fmt(r.roundTrips, 2)).padStart(12)}  ${(Number.isNaN(r.apiCpuMs) ? 'n/a' : fmt(r.apiCpuMs, 2)).padStart(17)}  ${fmt(r.rssMb, 0).padStart(10)}  ${fmt(r.baselineTps).padStart(13)}  ${fmt(r.perSecond / r.baselineTps, 3).padStart(6)}  ${String(r.failures).padStart(6)}`,
    );
  }
  console.log('  beside it, GET of an order by primary key (same registers, same authentication):');
  console.log('  registers  processes     GETs/s     p99 ms  API CPU ms/GET  settle:GET rate');
  for (const r of rows) {
    console.log(`  ${String(r.registers).padStart(9)}  ${String(r.processes).padStart(9)}  ${fmt(r.getsPerSecond).padStart(9)}  ${fmt(r.getP99).padStart(9)}  ${(Number.isNaN(r.getCpuMs) ? 'n/a' : fmt(r.getCpuMs, 2)).padStart(14)}  ${fmt(r.perSecond / r.getsPerSecond, 3).padStart(15)}`);
  }
  console.log('  goals at 32 registers: ratio >= 0.25, p99 <= 50 ms. Round trips are counted in the API process (one process only: with several, each counts its own).');
}

async function runOnce(REGISTERS: number, PROCESSES: number): Promise<SettleFigures> {
  const base = await freshBenchDatabase(root);
  const DATABASE_URL = base.url;

  // --- setup: one merchant, L locations with an active enrolment each, N pos devices spread over them.
  const h = createDatabase(DATABASE_URL, { max: 4 });
  await migrateAll(h.db);
  const seed = await seedDemo(h.db, { slug: 'bench', reset: true, apiKey: SECRETS.DEVICE_API_KEY, pinPepper: SECRETS.PIN_PEPPER });
  const tdb = bindTenant(h.db, seed.merchant.tenant_database);
  const locationIds = [seed.locations[0]!.id];
  const tenders = (await tdb.selectFrom('locations').select('pos_tenders').where('id', '=', locationIds[0]!).executeTakeFirstOrThrow()).pos_tenders;
  for (let i = 1; i < LOCATIONS; i++) {
    const id = Bun.randomUUIDv7();
    await tdb.insertInto('locations').values({ id, name: `Bench ${i}`, timezone: 'Europe/Brussels', country: 'BE', vat_no: 'BE0123456789', est_no: `21234${String(i).padStart(5, '0')}`, pos_tenders: JSON.stringify(tenders) }).execute();
    await tdb.insertInto('fdm_devices').values({ id: Bun.randomUUIDv7(), location_id: id, fdm_id: `FDM-BENCH-${i}`, regime: 'gks', status: 'active', mode: 'software' }).execute();
    locationIds.push(id);
  }
  const tokens = createTokenService(SECRETS.JWT_SECRET);
  const devices: { id: string; token: string }[] = [];
  for (let i = 0; i < REGISTERS; i++) {
    const id = Bun.randomUUIDv7();
    await h.db.insertInto('device_registry').values({ id, merchant_id: seed.merchant.id, type: 'pos', activation_code: null }).execute();
    await tdb.insertInto('devices').values({ id, location_id: locationIds[i % LOCATIONS]!, type: 'pos', name: `Bench POS ${i}`, network_info: '{}' }).execute();
    devices.push({ id, token: await tokens.sign({ type: 'pos', sub: id, merchant_id: seed.merchant.id, tenant_database: seed.merchant.tenant_database, ver: 0 }) });
  }

  // --- the API as its own process, so client and server do not share an event loop.
  const api = await startBenchApi(root, { port: PORT, databaseUrl: DATABASE_URL, env: { API_PROCESSES: String(PROCESSES) } });
  const url = (p: string) => `http://127.0.0.1:${PORT}/api${p}`;
  const managerPin = seed.staff.find((s) => s.role === 'manager')!.pin;
  const headers = (d: { token: string }, staff?: string) => ({
    authorization: `Bearer ${d.token}`,
    'x-client-api-key': SECRETS.DEVICE_API_KEY,
    'content-type': 'application/json',
    ...(staff ? { 'x-pos-staff-token': staff } : {}),
  });
  const item = seed.items[0]!;
  const registers = await Promise.all(
    devices.map(async (d) => {
      const login = await fetch(url('/pos/staff/pin-login'), { method: 'POST', headers: headers(d), body: JSON.stringify({ pin: managerPin }) });
      if (!login.ok) throw new Error(`pin-login ${login.status} ${await login.text()}`);
      const staff = ((await login.json()) as { staff_token: string }).staff_token;
      const orders: { id: string; total: number }[] = [];
      for (let k = 0; k < ORDERS; k++) {
        const id = crypto.randomUUID();
        const r = await fetch(url(`/pos/orders/${id}`), {
          method: 'PUT',
          headers: headers(d, staff),
          body: JSON.stringify({ expected_version: 0, lines: [{ uuid: crypto.randomUUID(), item_id: item.id, qty: 1 + (k % 3), unit_price: item.unit_price, price_source: 'catalog', modifiers: [] }] }),
        });
        if (!r.ok) throw new Error(`upsert ${r.status} ${await r.text()}`);
        orders.push({ id, total: ((await r.json()) as { totals: { total: number } }).totals.total });
      }
      return { d, staff, orders };
    }),
  );

  // --- measured phase: every register settles its orders one after another, all registers at once.
  const before = await scrape(PORT);
  const latencies: number[] = [];
  let failures = 0;
  const t0 = performance.now();
  await Promise.all(
    registers.map(async ({ d, staff, orders }) => {
      for (const o of orders) {
        const s = performance.now();
        const r = await fetch(url(`/pos/orders/${o.id}/settle`), { method: 'POST', headers: headers(d, staff), body: JSON.stringify({ amount_tendered: o.total + 500 }) });
        await r.arrayBuffer();
        latencies.push(performance.now() - s);
        if (r.status !== 200) failures++;
      }
    }),
  );
  const settleSeconds = (performance.now() - t0) / 1000;
  const after = await scrape(PORT);
  const roundTrips = PROCESSES === 1 ? (after.queries - before.queries) / latencies.length : NaN;
  const apiCpuMs = PROCESSES === 1 ? ((after.cpuSeconds - before.cpuSeconds) * 1000) / latencies.length : NaN;
  const rssMb = apiRssMb(api.pid);

  // --- beside it, the same registers reading their settled orders back (GET by primary key, same
  // authentication): what any register request costs the API, to tell the settle's own cost apart.
  const getLatencies: number[] = [];
  const g0 = performance.now();
  await Promise.all(
    registers.map(async ({ d, staff, orders }) => {
      for (const o of orders) {
        const s = performance.now();
        const r = await fetch(url(`/pos/orders/${o.id}`), { headers: headers(d, staff) });
        await r.arrayBuffer();
        getLatencies.push(performance.now() - s);
      }
    }),
  );
  const getsPerSecond = getLatencies.length / ((performance.now() - g0) / 1000);
  const afterGets = await scrape(PORT);
  const getCpuMs = PROCESSES === 1 ? ((afterGets.cpuSeconds - after.cpuSeconds) * 1000) / getLatencies.length : NaN;
  const getP99 = percentile(getLatencies.sort((a, b) => a - b), 99);
  api.kill('SIGTERM');
  await api.exited;

  // --- baseline: single-row update transactions, same database, same driver, same concurrency.
  await sql`create table bench_rows (id int primary key, n int not null)`.execute(h.db);
  await sql`insert into bench_rows select g, 0 from generate_series(1, ${REGISTERS}) g`.execute(h.db);
  const pool = createDatabase(DATABASE_URL, { max: 20, applicationName: 'bench-baseline' });
  const perWorker = Math.max(ORDERS * 5, 50);
  const b0 = performance.now();
  await Promise.all(
    Array.from({ length: REGISTERS }, (_, w) =>
      (async () => {
        for (let k = 0; k < perWorker; k++) {
          await pool.db.transaction().execute((tx) => sql`update bench_rows set n = n + 1 where id = ${w + 1}`.execute(tx));
        }
      })(),
    ),
  );
  const baselineTps = (REGISTERS * perWorker) / ((performance.now() - b0) / 1000);
  await pool.close();
  const journal = await tdb.selectFrom('fiscal_journal').select(sql<number>`count(*)`.as('n')).where('event_kind', '=', 'sale').executeTakeFirstOrThrow();
  await h.close();
  await base.stop();

  const sorted = latencies.sort((a, b) => a - b);
  if (journal.n !== latencies.length - failures) throw new Error(`${journal.n} sales journaled for ${latencies.length - failures} settles`);
  return {
    registers: REGISTERS,
    processes: PROCESSES,
    settles: latencies.length,
    failures,
    perSecond: latencies.length / settleSeconds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    roundTrips,
    apiCpuMs,
    getsPerSecond,
    getP99,
    getCpuMs,
    rssMb,
    baselineTps,
  };
}

/** Resident memory of the API process and the siblings it started, from /proc (Linux). */
function apiRssMb(pid: number): number {
  const rss = (p: number) => {
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      return m ? Number(m[1]) / 1024 : 0;
    } catch {
      return 0;
    }
  };
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {}
  return rss(pid) + children.reduce((sum, c) => sum + rss(c), 0);
}

/** The API's own counters: statements sent to PostgreSQL and resident memory, from GET /metrics. */
async function scrape(port: number): Promise<{ queries: number; rssBytes: number; cpuSeconds: number }> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const value = (name: string) => Number(text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))?.split(' ').pop() ?? NaN);
  return { queries: value('db_queries_total'), rssBytes: value('process_resident_memory_bytes'), cpuSeconds: value('process_cpu_seconds_total') };
}
