import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { bindTenant, enqueueOutbox, type TenantDb } from '@pos/db';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { seedDemo, type DemoSeedResult } from '@pos/core/seed/demo-seed';
import { capturePayment } from '@pos/core/payments/capture-payment';
import { listSteps, runPostCaptureMany } from '@pos/core/payments/post-capture';
import { findUnfinishedSequences, missingJobs } from '@pos/core/payments/post-capture-sweep';
import { jobMessage, postCaptureSweepJob } from '@pos/kernel/queues/index';
import { startWorker, stopWorker } from './worker.ts';
import { sweepPostCapture } from './jobs/post-capture-sweep.handler.ts';
import { deleteTenantOutbox, dropPrefix, openTestEnv, testWorkerDeps, uniquePrefix, waitFor, type TestEnv } from './test-support.ts';

/**
 * The outbox marks a row relayed once Redis has its job; a Redis that then loses its data (or a job
 * that spends its retries while the database is away) would leave a Complete transaction short of
 * post-capture steps for good. The sweep finds those and queues the missing jobs again, and the real
 * worker finishes them, each step once.
 */
let env: TestEnv;
let m: DemoSeedResult;
let tdb: TenantDb;
const prefix = uniquePrefix();

beforeAll(async () => {
  env = await openTestEnv();
  m = await seedDemo(env.handle.db, { slug: `sweep-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: 'k'.repeat(20), pinPepper: 'p'.repeat(20) });
  tdb = bindTenant(env.handle.db, m.merchant.tenant_database);
});
afterAll(async () => {
  await dropPrefix(env.redis, prefix);
  await deleteTenantOutbox(env.handle.db, m.merchant.tenant_database);
  await dropMerchant(env.handle.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
  await env.close();
});

const location = () => m.locations[0]!.id;
const espresso = () => m.items.find((i) => i.name === 'Espresso')!;
let orderNo = 9000;

/** A kiosk transaction awaiting payment, captured (its post-capture job goes to the outbox in the commit). */
async function captured(): Promise<string> {
  const id = Bun.randomUUIDv7();
  const item = espresso();
  const key = `idemp_${m.kiosk.device_id}_${Date.now()}${orderNo}`;
  await tdb
    .insertInto('transactions')
    .values({ id, location_id: location(), device_id: m.kiosk.device_id, channel: 'kiosk', order_no: ++orderNo, status: 'Awaiting Payment', order_status: null, payment_provider: 'card-b', payment_snapshot: JSON.stringify({ provider: 'card-b' }), idempotency_key: key, all_idempotency_keys: [key], receipt_no: null, subtotal: item.unit_price, discount: 0, vat: 0, total: item.unit_price, by_vat_rate: JSON.stringify([]), offers: JSON.stringify([]), menu_version: 1, customer_id: null, loyalty_token: null, cart_session_id: null, created_at: new Date(), updated_at: new Date() })
    .execute();
  const { category_id } = await tdb.selectFrom('items').select('category_id').where('id', '=', item.id).executeTakeFirstOrThrow();
  await tdb.insertInto('transaction_lines').values({ transaction_id: id, position: 0, item_id: item.id, category_id, name: item.name, qty: 2, unit_price: item.unit_price, vat_rate: item.vat_rate, gross: 2 * item.unit_price, discount: 0, total: 2 * item.unit_price, modifiers: JSON.stringify([]), variant: null }).execute();
  const r = await capturePayment({ tdb, tenantDatabase: m.merchant.tenant_database, redis: env.redis, log: env.log, now: () => new Date() }, id, { kind: 'webhook', outcome: 'succeeded', data: {} });
  expect(r.status).toBe('Complete');
  return id;
}

/** Redis took the job and then lost it: the rows of these transactions are relayed, and nothing runs them. */
async function lostInRedis(ids: readonly string[]): Promise<void> {
  await sql`update public.outbox set relayed_at = now() where relayed_at is null and (payload->>'transaction_id' = any(${[...ids]}::text[]) or payload->'messages'->0->'payload'->>'transaction_id' = any(${[...ids]}::text[]))`.execute(env.handle.db);
}

const completedAgo = (ids: readonly string[], ms: number) => tdb.updateTable('transactions').set({ completed_at: new Date(Date.now() - ms) }).where('id', 'in', [...ids]).execute();
const stepsOf = async (id: string) => (await listSteps(tdb, id)).map((s) => s.step);
const LAST = ['register_dispatch', 'daily_stats', 'finalise', 'edge_stock_sync'];

describe('post-capture sweep', () => {
  test('lost post-capture jobs and lost follow-up jobs are queued again and run once; recent and finished transactions are left alone', async () => {
    await tdb.insertInto('inventory_levels').values({ item_id: espresso().id, location_id: location(), quantity: 100 }).onConflict((oc) => oc.columns(['item_id', 'location_id']).doNothing()).execute();
    // A: its post-capture job was lost. B: the post-capture job ran, its four follow-up jobs were lost.
    // C: lost as A, but completed a moment ago (its jobs may still be on their way).
    const a = await captured();
    const b = await captured();
    const c = await captured();
    await lostInRedis([a, b, c]);
    expect(await runPostCaptureMany(tdb, m.merchant.tenant_database, [{ transaction_id: b, stock_changed: true }])).toEqual([null]);
    await lostInRedis([b]);
    await completedAgo([a, b], 5 * 60_000);
    const statsBefore = await tdb.selectFrom('daily_stats').select(['transactions', 'total']).where('location_id', '=', location()).executeTakeFirst();

    const unfinished = await findUnfinishedSequences(tdb, new Date());
    expect(unfinished.map((u) => u.id).sort()).toEqual([a, b].sort());
    const byId = new Map(unfinished.map((u) => [u.id, u]));
    // A gets its post-capture job (it writes the kitchen documents and queues the rest); B its four follow-ups, in the spec's order.
    expect(missingJobs(m.merchant.tenant_database, byId.get(a)!)).toMatchObject({ job: 'payment.post-capture', payload: { transaction_id: a, stock_changed: true } });
    expect((missingJobs(m.merchant.tenant_database, byId.get(b)!)!.payload as { messages: { job: string }[] }).messages.map((x) => x.job)).toEqual(['order.dispatch', 'stats.daily', 'payment.finalise', 'stock.edge-sync']);

    const worker = await startWorker({ ...testWorkerDeps(env, prefix), relayIntervalMs: 25 });
    try {
      await enqueueOutbox(env.handle.db, jobMessage(postCaptureSweepJob, { tenant_database: m.merchant.tenant_database }));
      worker.relay.trigger();
      await waitFor(async () => (await Promise.all([a, b].map(stepsOf))).every((s) => LAST.every((x) => s.includes(x))), 15_000, 're-driven sequences');
      for (const id of [a, b]) {
        const steps = await stepsOf(id);
        expect(steps.slice(0, 4)).toEqual(['capture', 'reread', 'payment_captured', 'queue_jobs']);
        expect(steps.slice(4).sort()).toEqual([...LAST].sort());
        expect(await tdb.selectFrom('kitchen_items').select('position').where('transaction_id', '=', id).execute()).toHaveLength(1);
        expect(await tdb.selectFrom('kitchen_tickets').select('id').where('source_id', '=', id).execute()).toHaveLength(1);
      }
      // Counted once each in the daily stats.
      const statsAfter = await tdb.selectFrom('daily_stats').select(['transactions', 'total']).where('location_id', '=', location()).executeTakeFirstOrThrow();
      expect(statsAfter.transactions - (statsBefore?.transactions ?? 0)).toBe(2);
      // C is inside the grace period: untouched.
      expect(await stepsOf(c)).toEqual(['capture']);
      // Nothing is left to sweep; a second sweep queues nothing.
      expect(await findUnfinishedSequences(tdb, new Date())).toEqual([]);
      expect((await sweepPostCapture(env.handle.db, env.redis, new Date(), env.log, m.merchant.tenant_database)).redriven).toBe(0);
    } finally {
      await stopWorker(worker);
    }
  });

  test('transactions re-driven lately do not hide a newer lost job: the sweep pages on past them', async () => {
    const older = [await captured(), await captured()];
    const newer = await captured();
    await lostInRedis([...older, newer]);
    await completedAgo(older, 60 * 60_000);
    await completedAgo([newer], 30 * 60_000);
    // Pages of two: the first sweep re-drives the two older ones; nothing runs them (say a register is
    // down and they keep failing); the next sweep still reaches the newer one.
    const sweep = () => sweepPostCapture(env.handle.db, env.redis, new Date(), env.log, m.merchant.tenant_database, 2);
    expect(await sweep()).toMatchObject({ redriven: 2, errors: 0 });
    expect(await sweep()).toMatchObject({ redriven: 1, errors: 0 });
    const queued = await env.handle.db.selectFrom('outbox').select(sql<string>`payload->>'transaction_id'`.as('id')).where('relayed_at', 'is', null).where('job', '=', 'payment.post-capture').execute();
    expect(queued.map((r) => r.id).filter((id) => [...older, newer].includes(id)).sort()).toEqual([...older, newer].sort());
  });

  test('a transaction re-driven is not re-driven again for ten minutes while its jobs may be on their way', async () => {
    const d = await captured();
    await lostInRedis([d]);
    await completedAgo([d], 5 * 60_000);
    const sweep = () => sweepPostCapture(env.handle.db, env.redis, new Date(), env.log, m.merchant.tenant_database);
    expect(await sweep()).toMatchObject({ redriven: 1, errors: 0 });
    expect(await sweep()).toMatchObject({ redriven: 0, errors: 0 });
    const rows = await env.handle.db.selectFrom('outbox').select('job').where('relayed_at', 'is', null).where(sql<boolean>`payload->>'transaction_id' = ${d}`).execute();
    expect(rows).toEqual([{ job: 'payment.post-capture' }]);
  });
});
