/**
 * API memory through the hostile-input pass (issue 8): the API runs as its own process; every
 * operation of its OpenAPI document gets the fuzz suite's hostile variants over HTTP with valid
 * credentials while the process's resident memory is sampled. Beside it, in the same run: the
 * idle RSS after start, and the answer time of the deep-nesting attack (three concurrent 200 KB
 * bodies nested 100,000 levels on the unauthenticated login) against a bare route's.
 *
 * Env: BENCH_FUZZ_PORT (3591). Goal: peak RSS under 300 MB.
 */
import { readFileSync } from 'node:fs';
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

const rssMb = (pid: number): number => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

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
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb(api.pid));
    }, 25);
    let who: Record<string, Record<string, string>> = await callers();
    const statuses: Record<number, number> = {};
    let requests = 0;
    const ops = operationsOf(doc);
    const started = performance.now();
    for (const op of ops) {
      for (const v of hostileRequests(op, { locationId: seed.locations[0]!.id })) {
        const send = () =>
          fetch(url(v.url), { method: v.method, headers: { ...who[kindOf(op.path)], ...(v.contentType ? { 'content-type': v.contentType } : {}) }, body: v.body }).then(
            async (r) => (await r.arrayBuffer(), r.status),
            () => 0,
          );
        let status = await send();
        if (status === 401) {
          who = await callers();
          status = await send();
        }
        requests++;
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, rssMb(api.pid));
    const sortedBare = bare.sort((a, b) => a - b);
    console.log('\n== API memory through the hostile-input pass ==');
    console.log(`operations ${ops.length}, requests ${requests} in ${fmt(seconds)} s, statuses ${JSON.stringify(statuses)}`);
    console.log(`deep-nesting attack: 3 concurrent 200 KB bodies answered ${JSON.stringify(attack)} in ${fmt(attackMs)} ms; bare route p50 ${fmt(percentile(sortedBare, 50), 2)} ms`);
    console.log(`RSS: idle ${fmt(idle)} MB, after the attack ${fmt(afterAttack)} MB, peak through the pass ${fmt(peak)} MB (goal < ${GOAL_MB} MB: ${peak < GOAL_MB ? 'met' : 'NOT met'}); peak/idle ${fmt(peak / idle, 2)}`);
  } finally {
    api.kill();
    await api.exited;
    await h.close();
    await bench.stop();
  }
}

if (import.meta.main) await runHostileMemoryBench();
