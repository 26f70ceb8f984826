/**
 * Fiscal recovery end to end (DESIGN 2, Fiscal): a register sale settled while its remote fiscal
 * module is unreachable stays SETTLING with a pending journal entry; the worker's scheduled
 * `fiscal.recover` sweep (outbox, relay, queue, processor, handler) completes it once the module is
 * back. Real PostgreSQL and Redis, the API driven through its test harness, the FDM simulator over
 * HTTP.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import { seedDemo, type DemoSeedResult } from '@pos/core/seed/demo-seed';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { startFdmSimulator, type FdmSimulator } from '@pos/providers/fdm/fdm-simulator';
import { createTestApi, TEST_ENV, type TestApi } from '../../api/src/testing/harness.ts';
import { startWorker, type RunningWorker } from './worker.ts';
import { dropPrefix, openTestEnv, testFiscal, testWorkerDeps, uniquePrefix, waitFor, type TestEnv } from './test-support.ts';

const SECRET = 'worker-recovery-secret';

let env: TestEnv;
let m: DemoSeedResult;
let tdb: TenantDb;
let fdmId: string;
let sim: FdmSimulator;
let api: TestApi;
let device: string;
let cashier: string;
let worker: RunningWorker | undefined;
const prefixes: string[] = [];

beforeAll(async () => {
  env = await openTestEnv();
  m = await seedDemo(env.handle.db, {
    slug: `worker-fiscal-${crypto.randomUUID().slice(0, 8)}`,
    reset: false,
    apiKey: TEST_ENV.DEVICE_API_KEY,
    pinPepper: TEST_ENV.PIN_PEPPER,
  });
  tdb = bindTenant(env.handle.db, m.merchant.tenant_database);
  // The seeded enrolment's fdm id comes from the schema name: seed, switch it to a remote module,
  // then start the simulator for that id and an API configured to reach it.
  const fdm = await tdb.selectFrom('fdm_devices').select('fdm_id').where('location_id', '=', m.devices[0]!.location_id).executeTakeFirstOrThrow();
  fdmId = fdm.fdm_id;
  await tdb.updateTable('fdm_devices').set({ mode: 'remote' }).where('fdm_id', '=', fdmId).execute();
  sim = startFdmSimulator({ port: 0, sharedSecret: SECRET, deviceId: fdmId });
  api = await createTestApi({ env: { FDM_REMOTE_URL: sim.url, FDM_REMOTE_SECRETS: JSON.stringify({ [fdmId]: SECRET }) } });
  device = await api.deviceToken(m, 'pos', 0);
  cashier = await api.staffLogin(m, 'cashier', device);
});

afterEach(async () => {
  await worker?.stop();
  worker = undefined;
});

afterAll(async () => {
  await api?.close();
  await sim?.stop();
  if (m) await dropMerchant(env.handle.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
  for (const p of prefixes) await dropPrefix(env.redis, p);
  await env.close();
});

/** The worker as `main.ts` runs it, with the fiscal settings of its env and sweeps every 200 ms. */
async function startRecoveringWorker(secret: string): Promise<RunningWorker> {
  const prefix = uniquePrefix();
  prefixes.push(prefix);
  worker = await startWorker({
    ...testWorkerDeps(env, prefix),
    fiscal: testFiscal(env.log, { FDM_REMOTE_URL: sim.url, FDM_REMOTE_SECRETS: JSON.stringify({ [fdmId]: secret }) }),
    // Frequent sweeps, and the entry just written counts as old enough.
    fiscalRecoverMs: 200,
    fiscalRecoverOlderThanMs: 0,
  });
  return worker;
}

const call = (method: string, path: string, body?: unknown) => api.call(method, path, { token: device, deviceKey: true, staffToken: cashier, body });

/** Espresso x2 + croissant (780), settled with 10.00 cash while the module is down: 503, order SETTLING. */
async function settlingOrder(): Promise<string> {
  const id = crypto.randomUUID();
  const lines = ['Espresso', 'Croissant'].map((name, i) => {
    const it = m.items.find((x) => x.name === name)!;
    return { uuid: crypto.randomUUID(), item_id: it.id, qty: i === 0 ? 2 : 1, unit_price: it.unit_price, price_source: 'catalog', modifiers: [] };
  });
  expect((await call('PUT', `/api/pos/orders/${id}`, { lines })).status).toBe(200);
  sim.simulateOutage(1000);
  try {
    const r = await call('POST', `/api/pos/orders/${id}/settle`, { amount_tendered: 1000 });
    expect(r).toMatchObject({ status: 503, body: { reason: 'fiscal_unreachable' } });
  } finally {
    sim.simulateOutage(0);
  }
  expect(await orderRow(id)).toMatchObject({ state: 'SETTLING', transaction_id: null });
  expect((await journalOf(id)).map((j) => j.status)).toEqual(['pending']);
  return id;
}

const orderRow = (id: string) => tdb.selectFrom('pos_orders').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const journalOf = (id: string) => tdb.selectFrom('fiscal_journal').selectAll().where('subject_type', '=', 'pos_order').where('subject_id', '=', id).execute();
const transactionsOf = (id: string) => tdb.selectFrom('pos_transactions').selectAll().where('order_id', '=', id).execute();
const json = (v: unknown): any => (typeof v === 'string' ? JSON.parse(v) : v);

describe('fiscal.recover in the worker', () => {
  test('a sale left SETTLING by an unreachable module is signed and SETTLED by the scheduled sweep, once', async () => {
    const id = await settlingOrder();
    // Signed so far: nothing of the sale; the cashier's work-in at pin login is queued for the worker.
    const signedBefore = sim.signedCount;

    const w = await startRecoveringWorker(SECRET);
    const settled = await waitFor(async () => {
      const row = await orderRow(id);
      return row.state === 'SETTLED' ? row : undefined;
    }, 15_000, 'order SETTLED by the recovery sweep');

    // The scheduler's outbox row reached this worker's own queues (unique prefix) only through its relay.
    // The order turns SETTLED inside the handler; the job counts as processed only once the handler returns.
    await waitFor(async () => ((await w.metrics.processedCount('fiscal.recover')) >= 1 ? true : undefined), 5_000, 'fiscal.recover counted as processed');
    expect(await w.metrics.outboxRelayed()).toBeGreaterThanOrEqual(1);

    const [entry, ...more] = await journalOf(id);
    expect(more).toHaveLength(0);
    expect(entry!.status).toBe('signed');
    const result = json(entry!.sign_result);
    const fiscal = json(settled.fiscal);
    expect(fiscal).toMatchObject({ fdm_id: fdmId, journal_id: entry!.id, journal_seq: Number(entry!.seq), digital_signature: result.digitalSignature, fdm_ref: result.fdmRef });
    expect(json(settled.tender)).toMatchObject({ amount_tendered: 1000, change: 220 });
    expect(settled.version).toBe(2);
    const [tx, ...moreTx] = await transactionsOf(id);
    expect(moreTx).toHaveLength(0);
    expect(tx).toMatchObject({ id: settled.transaction_id, total: 780 });

    // The register sees the settled sale with its fiscal data.
    const seen = await call('GET', `/api/pos/orders/${id}`);
    expect(seen.body).toMatchObject({ state: 'SETTLED', transaction_id: settled.transaction_id, fiscal: { digital_signature: result.digitalSignature } });

    // Later sweeps find nothing to do: the module counted the sale exactly once (and the worker the queued work-in once).
    const runs = await w.metrics.processedCount('fiscal.recover');
    await waitFor(async () => (await w.metrics.processedCount('fiscal.recover')) >= runs + 2, 10_000, 'two more sweeps');
    expect(sim.signedCount).toBe(signedBefore + 2);
    expect((await tdb.selectFrom('fiscal_journal').select(['event_kind', 'status']).where('subject_type', '=', 'pos_staff_session').execute())).toEqual([{ event_kind: 'work_in', status: 'signed' }]);
    expect(await transactionsOf(id)).toHaveLength(1);
    expect((await orderRow(id)).version).toBe(2);
  });

  test('a sale signed late gets its receipt queued on the location\'s receipt printers (issue 15)', async () => {
    const printerId = crypto.randomUUID();
    await tdb.insertInto('printers').values({ id: printerId, location_id: m.devices[0]!.location_id, mac: '00:11:62:FE:00:01', state: 'paired', name: 'Counter', last_reported_at: new Date(), created_at: new Date(), updated_at: new Date() }).execute();
    try {
      const id = await settlingOrder();
      expect(await tdb.selectFrom('print_jobs').select('id').where('printer_id', '=', printerId).execute()).toEqual([]);
      await startRecoveringWorker(SECRET);
      const job = await waitFor(async () => tdb.selectFrom('print_jobs').select(['source_key', 'document']).where('printer_id', '=', printerId).executeTakeFirst(), 15_000, 'the receipt job');
      expect(job.source_key).toBe(`sale:${id}`);
      const fiscal = json((await orderRow(id)).fiscal);
      expect(job.document).toContain(`Signature: ${fiscal.short_signature}`);
    } finally {
      await tdb.deleteFrom('printers').where('id', '=', printerId).execute();
    }
  });

  test('a module refusing the resent sale puts the order back to OPEN, its entry failed', async () => {
    const id = await settlingOrder();
    const signedBefore = sim.signedCount;

    // A wrong shared secret: the module answers 401, a refusal (it counted nothing).
    await startRecoveringWorker('not-the-module-secret');
    const reopened = await waitFor(async () => {
      const row = await orderRow(id);
      return row.state === 'OPEN' ? row : undefined;
    }, 15_000, 'order back to OPEN');
    expect(reopened).toMatchObject({ tender: null, transaction_id: null });
    expect((await journalOf(id)).map((j) => j.status)).toEqual(['failed']);
    expect(await transactionsOf(id)).toHaveLength(0);
    expect(sim.signedCount).toBe(signedBefore);
  });
});
