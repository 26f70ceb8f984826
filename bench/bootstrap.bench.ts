/**
 * Register bootstrap with a 500-item published menu (the published-catalog reader and its Redis cache)
 * against the real API process over HTTP. Beside it, in the same run, the same API's primary-key read
 * route with the same authentication (`GET /device-auth/user`: one device row by id), at the same
 * concurrency. Prints requests/s, p50, p99 and the ratio.
 *
 * Env: BENCH_CLIENTS (4 concurrent), BENCH_REQUESTS (400 per client), BENCH_ITEMS (500),
 * BENCH_BOOTSTRAP_PORT (3591), BENCH_BOOTSTRAP_DATABASE (ordering_bench_bootstrap).
 */
import { join } from 'node:path';
import { bindTenant, createDatabase, migrateAll } from '@pos/db';
import { freshBenchDatabase } from './bench-database.ts';
import { BENCH_SECRETS, startBenchApi } from './bench-api.ts';
import { seedDemo } from '@pos/core/seed/demo-seed';
import { createTokenService } from '../services/api/src/plugins/tokens.ts';
import { fmt, percentile } from './stats.ts';

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 4);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 400);
const ITEMS = Number(process.env.BENCH_ITEMS ?? 500);
const PORT = Number(process.env.BENCH_BOOTSTRAP_PORT ?? 3591);
const root = join(import.meta.dir, '..');
const SECRETS = BENCH_SECRETS;

async function measure(url: string, headers: Record<string, string>): Promise<{ rps: number; p50: number; p99: number; failures: number; bytes: number }> {
  // Warm-up: caches, JIT, connection pool.
  for (let i = 0; i < 20; i++) await (await fetch(url, { headers })).arrayBuffer();
  const latencies: number[] = [];
  let failures = 0;
  let bytes = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      for (let k = 0; k < REQUESTS; k++) {
        const s = performance.now();
        const r = await fetch(url, { headers });
        bytes = (await r.arrayBuffer()).byteLength;
        latencies.push(performance.now() - s);
        if (r.status !== 200) failures++;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const sorted = latencies.sort((a, b) => a - b);
  return { rps: latencies.length / seconds, p50: percentile(sorted, 50), p99: percentile(sorted, 99), failures, bytes };
}

export async function runBootstrapBench(): Promise<void> {
  const bench = await freshBenchDatabase(root, '_bootstrap');
  const DATABASE_URL = bench.url;

  // --- setup: the demo merchant, then ITEMS items in 10 display groups of a new menu.
  const h = createDatabase(DATABASE_URL, { max: 4 });
  await migrateAll(h.db);
  const seed = await seedDemo(h.db, { slug: 'bench-bootstrap', reset: true, apiKey: SECRETS.DEVICE_API_KEY, pinPepper: SECRETS.PIN_PEPPER });
  const tdb = bindTenant(h.db, seed.merchant.tenant_database);
  const location = seed.locations[0]!.id;
  const menuId = Bun.randomUUIDv7();
  await tdb.insertInto('menus').values({ id: menuId, location_id: location, name: 'Bench', status: 'draft', draft: null }).execute();
  const groups = Array.from({ length: 10 }, (_, i) => ({ id: Bun.randomUUIDv7(), menu_id: menuId, name: `Group ${i + 1}`, position: i }));
  await tdb.insertInto('display_groups').values(groups).execute();
  const items = Array.from({ length: ITEMS }, (_, i) => ({
    id: Bun.randomUUIDv7(),
    name: `Bench item ${String(i + 1).padStart(3, '0')}`,
    description: 'A dish with a description of ordinary length, as a menu shows it.',
    unit_price: 250 + (i % 40) * 25,
    vat_rate: i % 3 === 0 ? 6 : 21,
    category: null,
    allergens: ['gluten', 'milk'],
  }));
  await tdb.insertInto('items').values(items).execute();
  await tdb
    .insertInto('display_group_items')
    .values(items.map((it, i) => ({ display_group_id: groups[i % groups.length]!.id, item_id: it.id, position: Math.floor(i / groups.length) })))
    .execute();

  const api = await startBenchApi(root, { port: PORT, databaseUrl: DATABASE_URL });
  const url = (p: string) => `http://127.0.0.1:${PORT}/api${p}`;
  try {
    // Publish through the back office, as a merchant would.
    const login = await fetch(url('/login'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(seed.backoffice) });
    const owner = ((await login.json()) as { token: string }).token;
    const pub = await fetch(url(`/back-office/menus/publish/${menuId}`), { method: 'POST', headers: { authorization: `Bearer ${owner}` } });
    if (pub.status !== 200) throw new Error(`publish ${pub.status} ${await pub.text()}`);

    const tokens = createTokenService(SECRETS.JWT_SECRET);
    const pos = seed.devices.find((d) => d.type === 'pos')!;
    const token = await tokens.sign({ type: 'pos', sub: pos.id, merchant_id: seed.merchant.id, tenant_database: seed.merchant.tenant_database, ver: 0 });
    const headers = { authorization: `Bearer ${token}`, 'x-client-api-key': SECRETS.DEVICE_API_KEY };
    const check = (await (await fetch(url('/pos/bootstrap'), { headers })).json()) as { display_groups: { items: unknown[] }[] };
    const served = check.display_groups.reduce((s, g) => s + g.items.length, 0);
    if (served !== ITEMS) throw new Error(`bootstrap served ${served} items, expected ${ITEMS}`);

    const boot = await measure(url('/pos/bootstrap'), headers);
    const pk = await measure(url('/device-auth/user'), headers);
    console.log(`bootstrap: ${ITEMS}-item published menu, ${CLIENTS} concurrent clients x ${REQUESTS} requests (${fmt(boot.bytes / 1024)} KiB per answer)`);
    console.log(`  GET /pos/bootstrap      ${fmt(boot.rps)} req/s   p50 ${fmt(boot.p50)} ms   p99 ${fmt(boot.p99)} ms   failures ${boot.failures}`);
    console.log(`  GET /device-auth/user   ${fmt(pk.rps)} req/s   p50 ${fmt(pk.p50)} ms   p99 ${fmt(pk.p99)} ms   failures ${pk.failures}   (baseline: primary-key read, same auth)`);
    console.log(`  ratio bootstrap : primary-key read = ${fmt(boot.rps / pk.rps, 3)}   (goal >= 0.4; p99 goal < 20 ms)`);
  } finally {
    api.kill('SIGTERM');
    await api.exited;
    await h.close();
    await bench.stop();
  }
}
