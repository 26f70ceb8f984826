/**
 * API memory through the hostile-input pass (issue 8): the API runs as its own process; every
 * operation of its OpenAPI document gets the fuzz suite's hostile variants over HTTP with valid
 * credentials while the process's resident memory is sampled. Beside it, in the same run: the
 * idle RSS after start, and the answer time of the deep-nesting attack (three concurrent 200 KB
 * bodies nested 100,000 levels on the unauthenticated login) against a bare route's.
 *
 * Env: BENCH_FUZZ_PORT (3591). Goal: peak RSS under 300 MB.
 * Investigation only (the figures then are not the goal's; docs/performance.md, "Hostile-input memory"):
 * - BENCH_HOSTILE_PROFILE=1: RSS growth per route family, per operation and per request, the request
 *   in flight at each new peak, the RSS along the pass and 5 s after it;
 * - BENCH_HOSTILE_ONLY=<regex>: only the operations whose path matches;
 * - BENCH_HOSTILE_PASSES=<n>: the pass n times in the same API process;
 * - BENCH_API_FLAGS="--preload ./bench/memory-probe.preload.ts": the API's heap figures (as they are
 *   and after a full collection) at idle and after the pass (MEMORY_PROBE_SNAPSHOT=1 adds heap snapshots);
 * - BENCH_HOSTILE_SMAPS=<file>: the API's /proc smaps at idle (<file>.idle), after the pass (<file>)
 *   and after the settle time (<file>.settled);
 * - BENCH_HOSTILE_SETTLE=<s>: the RSS (and probe) that long after the pass.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bindTenant, createDatabase, migrateAll } from '@pos/db';
import { freshBenchDatabase } from './bench-database.ts';
import { BENCH_SECRETS, startBenchApi } from './bench-api.ts';
import { seedDemo } from '@pos/core/seed/demo-seed';
import { openStaffSession } from '@pos/core/pos/staff/staff-session';
import { createTokenService } from '../services/api/src/plugins/tokens.ts';
import { hostileRequests, operationsOf } from '../services/api/src/fuzz/hostile-variants.ts';
import { fmt, percentile } from './stats.ts';

const PORT = Number(process.env.BENCH_FUZZ_PORT ?? 3591);
const root = join(import.meta.dir, '..');
const SECRETS = BENCH_SECRETS;
const GOAL_MB = 300;
const PROFILE = process.env.BENCH_HOSTILE_PROFILE === '1';
const ONLY = process.env.BENCH_HOSTILE_ONLY ? new RegExp(process.env.BENCH_HOSTILE_ONLY) : null;
const PROBE = (process.env.BENCH_API_FLAGS ?? '').includes('memory-probe');

const rssMb = (pid: number): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

/** The API's heap figures through the preloaded probe (SIGUSR2), or null without it. */
async function probe(pid: number): Promise<string | null> {
  if (!PROBE) return null;
  const out = `/tmp/memory-probe-${pid}.json`;
  rmSync(out, { force: true });
  process.kill(pid, 'SIGUSR2');
  // Up to a minute: a heap snapshot (MEMORY_PROBE_SNAPSHOT=1) takes a while to write.
  for (let i = 0; i < 1200 && !existsSync(out); i++) await Bun.sleep(50);
  await Bun.sleep(50);
  const mb = (n: number) => fmt(n / 1048576);
  const r = JSON.parse(readFileSync(out, 'utf8')) as Record<'before' | 'after', { rss: number; heapSize: number; heapCapacity: number; extraMemorySize: number; objectCount: number; external: number; arrayBuffers: number; top: [string, number][] }>;
  const line = (x: (typeof r)['before']) =>
    `rss ${mb(x.rss)} MB, JS heap ${mb(x.heapSize)} MB (capacity ${mb(x.heapCapacity)}, extra ${mb(x.extraMemorySize)}), objects ${x.objectCount}, external ${mb(x.external)} MB, array buffers ${mb(x.arrayBuffers)} MB`;
  return `as is: ${line(r.before)}\n  after full GC: ${line(r.after)}\n  top object types after GC: ${r.after.top.map(([k, n]) => `${k} ${n}`).join(', ')}`;
}

export async function runHostileMemoryBench(): Promise<void> {
  const bench = await freshBenchDatabase(root, '_hostile');
  const DATABASE_URL = bench.url;

  const h = createDatabase(DATABASE_URL, { max: 4 });
  await migrateAll(h.db);
  const seed = await seedDemo(h.db, { slug: 'bench-fuzz', reset: true, apiKey: SECRETS.DEVICE_API_KEY, pinPepper: SECRETS.PIN_PEPPER });
  const tokens = createTokenService(SECRETS.JWT_SECRET);
  const owner = await h.db.selectFrom('users').select('id').where('email', '=', seed.backoffice.email).executeTakeFirstOrThrow();
  const claims = { merchant_id: seed.merchant.id, tenant_database: seed.merchant.tenant_database };
  const deviceToken = async (type: 'pos' | 'kiosk' | 'kds', index = 0) => {
    const d = seed.devices.filter((x) => x.type === type)[index]!;
    const reg = await h.db.selectFrom('device_registry').select('token_version').where('id', '=', d.id).executeTakeFirstOrThrow();
    return tokens.sign({ type, sub: d.id, ...claims, ver: reg.token_version });
  };
  const tdb = bindTenant(h.db, seed.merchant.tenant_database);
  const manager = await tdb.selectFrom('staff_credentials').select('id').where('name', '=', seed.staff.find((s) => s.role === 'manager')!.name).executeTakeFirstOrThrow();
  const register = seed.devices.filter((d) => d.type === 'pos')[1]!;
  const callers = async () => ({
    owner: { authorization: `Bearer ${await tokens.sign({ type: 'backoffice', sub: owner.id, ...claims })}` },
    pos: { authorization: `Bearer ${await deviceToken('pos')}`, 'x-client-api-key': SECRETS.DEVICE_API_KEY },
    posStaff: {
      authorization: `Bearer ${await deviceToken('pos', 1)}`,
      'x-client-api-key': SECRETS.DEVICE_API_KEY,
      'x-pos-staff-token': (await openStaffSession(tdb, { staffId: manager.id, deviceId: register.id, locationId: register.location_id, now: new Date() })).token,
    },
    kiosk: { authorization: `Bearer ${await deviceToken('kiosk')}`, 'x-client-api-key': SECRETS.DEVICE_API_KEY },
    kds: { authorization: `Bearer ${await deviceToken('kds')}`, 'x-client-api-key': SECRETS.DEVICE_API_KEY },
  });
  const kindOf = (path: string) =>
    path.startsWith('/api/pos/staff/pin-login') ? 'pos' : path.startsWith('/api/pos/') ? 'posStaff' : path.startsWith('/api/kds') ? 'kds' : path.startsWith('/api/kiosk') ? 'kiosk' : path.startsWith('/api/device-auth') ? 'pos' : 'owner';

  const api = await startBenchApi(root, { port: PORT, databaseUrl: DATABASE_URL });
  const url = (p: string) => `http://127.0.0.1:${PORT}${p}`;
  try {
    const doc = (await (await fetch(url("/api/docs/json"))).json()) as { paths: Record<string, Record<string, any>> };
    const idle = rssMb(api.pid);
    const idleProbe = await probe(api.pid);
    if (process.env.BENCH_HOSTILE_SMAPS) writeFileSync(`${process.env.BENCH_HOSTILE_SMAPS}.idle`, readFileSync(`/proc/${api.pid}/smaps`));

    // Baseline beside the attack: a bare route's answer time, then three concurrent deep bodies.
    const bare: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t0 = performance.now();
      await (await fetch(url('/api/health/liveness'))).arrayBuffer();
      bare.push(performance.now() - t0);
    }
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    const t0 = performance.now();
    const attack = await Promise.all([0, 1, 2].map(() => fetch(url('/api/login'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: deep }).then((r) => r.status)));
    const attackMs = performance.now() - t0;
    const afterAttack = rssMb(api.pid);

    let peak = Math.max(idle, afterAttack);
    // Profile: the request in flight at each new peak sample.
    let inFlight = '';
    const peaks: string[] = [];
    const sampler = setInterval(() => {
      const now = rssMb(api.pid);
      if (PROFILE && now > peak) peaks.push(`${fmt(now)} ${inFlight}`);
      peak = Math.max(peak, now);
    }, 25);
    let who: Record<string, Record<string, string>> = await callers();
    const statuses: Record<number, number> = {};
    let requests = 0;
    // The WebSocket upgrade (`WS /api/realtime`) is not an HTTP request fetch can send with a body: its
    // hostile frames are the real-time suite's (realtime-adversarial.test.ts); counted here they were 16 status-0 failures of the client.
    const ops = operationsOf(doc).filter((op) => op.method !== 'WS' && (!ONLY || ONLY.test(op.path)));
    const started = performance.now();
    const growth: { op: string; family: string; before: number; after: number }[] = [];
    const requestGrowth: { request: string; status: number; grew: number }[] = [];
    // BENCH_HOSTILE_PASSES=<n> (investigation): the pass n times in the same API process.
    const passes = Number(process.env.BENCH_HOSTILE_PASSES ?? 1);
    for (const op of Array.from({ length: passes }, () => ops).flat()) {
      const before = PROFILE ? rssMb(api.pid) : 0;
      for (const v of hostileRequests(op, { locationId: seed.locations[0]!.id })) {
        const send = () =>
          fetch(url(v.url), { method: v.method, headers: { ...who[kindOf(op.path)], ...(v.contentType ? { 'content-type': v.contentType } : {}) }, body: v.body }).then(
            async (r) => (await r.arrayBuffer(), r.status),
            () => 0,
          );
        const requestBefore = PROFILE ? rssMb(api.pid) : 0;
        if (PROFILE) inFlight = `${v.method} ${op.path} ${v.variant}`;
        let status = await send();
        if (status === 401) {
          who = await callers();
          status = await send();
        }
        if (PROFILE) requestGrowth.push({ request: `${v.method} ${op.path} ${v.variant}`, status, grew: rssMb(api.pid) - requestBefore });
        requests++;
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
      if (PROFILE) growth.push({ op: `${op.method} ${op.path}`, family: op.path.split('/').slice(2, 4).join('/'), before, after: rssMb(api.pid) });
    }
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, rssMb(api.pid));
    const sortedBare = bare.sort((a, b) => a - b);
    console.log('\n== API memory through the hostile-input pass ==');
    console.log(`operations ${ops.length}, requests ${requests} in ${fmt(seconds)} s, statuses ${JSON.stringify(statuses)}`);
    console.log(`deep-nesting attack: 3 concurrent 200 KB bodies answered ${JSON.stringify(attack)} in ${fmt(attackMs)} ms; bare route p50 ${fmt(percentile(sortedBare, 50), 2)} ms`);
    console.log(`RSS: idle ${fmt(idle)} MB, after the attack ${fmt(afterAttack)} MB, peak through the pass ${fmt(peak)} MB (goal < ${GOAL_MB} MB: ${peak < GOAL_MB ? 'met' : 'NOT met'}); peak/idle ${fmt(peak / idle, 2)}`);
    if (ONLY) console.log(`(only operations matching ${ONLY}: not the goal's figure)`);
    if (PROFILE) {
      const end = rssMb(api.pid);
      await Bun.sleep(5000);
      console.log(`profile: RSS at the end of the pass ${fmt(end)} MB, 5 s later ${fmt(rssMb(api.pid))} MB`);
      if (process.env.BENCH_HOSTILE_SMAPS) writeFileSync(process.env.BENCH_HOSTILE_SMAPS, readFileSync(`/proc/${api.pid}/smaps`));
      const families = new Map<string, { ops: number; grew: number }>();
      for (const g of growth) {
        const f = families.get(g.family) ?? { ops: 0, grew: 0 };
        f.ops++;
        f.grew += g.after - g.before;
        families.set(g.family, f);
      }
      console.log('profile: RSS growth per family (MB, operations):');
      for (const [f, x] of [...families].sort((a, b) => b[1].grew - a[1].grew).slice(0, 25)) console.log(`  ${fmt(x.grew)}\t${x.ops}\t${f}`);
      console.log('profile: operations that grew RSS most (MB, RSS after):');
      for (const g of [...growth].sort((a, b) => b.after - b.before - (a.after - a.before)).slice(0, 25)) console.log(`  ${fmt(g.after - g.before)}\t${fmt(g.after)}\t${g.op}`);
      console.log('profile: requests that grew RSS most (MB, status):');
      for (const r of [...requestGrowth].sort((a, b) => b.grew - a.grew).slice(0, 30)) console.log(`  ${fmt(r.grew)}\t${r.status}\t${r.request}`);
      const byVariant = new Map<string, number>();
      for (const r of requestGrowth) {
        const variant = r.request.split(' ').at(-1)!;
        byVariant.set(variant, (byVariant.get(variant) ?? 0) + r.grew);
      }
      console.log(`profile: RSS growth per variant (MB): ${[...byVariant].sort((a, b) => b[1] - a[1]).map(([k, g]) => `${k} ${fmt(g)}`).join(', ')}`);
      console.log(`profile: the last new peaks (MB, request in flight):\n  ${peaks.slice(-8).join('\n  ')}`);
      const step = Math.max(1, Math.floor(growth.length / 20));
      console.log(`profile: RSS along the pass: ${growth.filter((_, i) => i % step === 0).map((g, i) => `${i * step}:${fmt(g.after)}`).join(' ')}`);
    }
    if (PROBE) console.log(`probe at idle: ${idleProbe}\nprobe after the pass: ${await probe(api.pid)}`);
    // BENCH_HOSTILE_SETTLE=<seconds>: what the API still holds after that long without requests.
    const settle = Number(process.env.BENCH_HOSTILE_SETTLE ?? 0);
    if (settle > 0) {
      await Bun.sleep(settle * 1000);
      if (process.env.BENCH_HOSTILE_SMAPS) writeFileSync(`${process.env.BENCH_HOSTILE_SMAPS}.settled`, readFileSync(`/proc/${api.pid}/smaps`));
      console.log(`RSS ${settle} s after the pass: ${fmt(rssMb(api.pid))} MB${PROBE ? `; probe: ${await probe(api.pid)}` : ''}`);
    }
  } finally {
    api.kill();
    await api.exited;
    await h.close();
    await bench.stop();
  }
}

if (import.meta.main) await runHostileMemoryBench();
