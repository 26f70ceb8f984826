import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { bindTenant, type TenantDb } from '@pos/db';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { seedDemo, type DemoSeedResult } from '@pos/core/seed/demo-seed';
import { addToDailyStats, dispatchOrderToRegister, listSteps, rereadTransaction, runPostCapture, writeKitchenItems } from '@pos/core/payments/post-capture';
import { loadLines, loadTransaction } from '@pos/core/payments/transaction-records';
import { openTestEnv, type TestEnv } from './test-support.ts';

/**
 * The post-capture steps as single statements (issue 12 item 10), called directly: the register
 * dispatch still refuses to run before the kitchen documents, the daily stats count a transaction
 * once on its location's local date, the queued jobs follow the spec's order and conditions, and a
 * transaction that is not Complete gets no step.
 */
let env: TestEnv;
let m: DemoSeedResult;
let tdb: TenantDb;

beforeAll(async () => {
  env = await openTestEnv();
  m = await seedDemo(env.handle.db, { slug: `pcs-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: 'k'.repeat(20), pinPepper: 'p'.repeat(20) });
  tdb = bindTenant(env.handle.db, m.merchant.tenant_database);
});
afterAll(async () => {
  await env.handle.db.deleteFrom('outbox').where(sql<string>`payload->>'tenant_database'`, '=', m.merchant.tenant_database).execute();
  await dropMerchant(env.handle.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
  await env.close();
});

let orderNo = 0;
async function transaction(opts: { status?: 'Complete' | 'Awaiting Payment'; completedAt?: Date; isTest?: boolean; cart?: string | null } = {}): Promise<string> {
  const id = Bun.randomUUIDv7();
  const item = m.items[0]!;
  const n = ++orderNo;
  await tdb
    .insertInto('transactions')
    .values({
      id,
      location_id: m.locations[0]!.id,
      device_id: m.kiosk.device_id,
      channel: 'kiosk',
      order_no: n,
      status: opts.status ?? 'Complete',
      order_status: opts.status === 'Awaiting Payment' ? null : 'Queued',
      payment_provider: 'card-b',
      payment_snapshot: JSON.stringify({ provider: 'card-b' }),
      idempotency_key: `idemp_${m.kiosk.device_id}_${Date.now()}${n}`,
      all_idempotency_keys: [],
      receipt_no: opts.status === 'Awaiting Payment' ? null : n,
      subtotal: 250,
      discount: 0,
      vat: 0,
      total: 250,
      by_vat_rate: JSON.stringify([]),
      offers: JSON.stringify([]),
      menu_version: 1,
      customer_id: null,
      loyalty_token: null,
      cart_session_id: opts.cart ?? null,
      is_test: opts.isTest ?? false,
      completed_at: opts.status === 'Awaiting Payment' ? null : (opts.completedAt ?? new Date()),
      created_at: new Date(),
      updated_at: new Date(),
    })
    .execute();
  await tdb
    .insertInto('transaction_lines')
    .values({ transaction_id: id, position: 0, item_id: item.id, category_id: null, name: item.name, qty: 2, unit_price: 125, vat_rate: item.vat_rate, gross: 250, discount: 0, total: 250, modifiers: JSON.stringify([]), variant: null })
    .execute();
  return id;
}

const outboxJobs = async (id: string) =>
  (await env.handle.db.selectFrom('outbox').select(['job', 'payload']).where(sql<string>`payload->>'transaction_id'`, '=', id).orderBy('id').execute()).map((r) => r.job);

describe('post-capture steps, one statement each', () => {
  test('the register dispatch refuses before the kitchen documents exist, then records that no register is configured', async () => {
    const id = await transaction();
    await expect(dispatchOrderToRegister(tdb, id)).rejects.toThrow(`order ${id}: kitchen item documents not written yet`);
    expect(await listSteps(tdb, id)).toEqual([]);
    expect((await loadTransaction(tdb, id)).pos_sync_status).toBeNull();

    const t = await loadTransaction(tdb, id);
    await writeKitchenItems(tdb, [{ t, lines: await loadLines(tdb, id) }]);
    await dispatchOrderToRegister(tdb, id);
    await dispatchOrderToRegister(tdb, id);
    expect(await listSteps(tdb, id)).toEqual([{ step: 'register_dispatch', outcome: 'not_configured', detail: '1 kitchen items' }]);
    expect(await loadTransaction(tdb, id)).toMatchObject({ pos_sync_status: 'not_configured', pos_sync_detail: 'No register is configured for this location.' });

    await expect(dispatchOrderToRegister(tdb, crypto.randomUUID())).rejects.toMatchObject({ name: 'AppError', code: 'not_found' });
  });

  test('daily stats: counted once under concurrent runs, on the location local date', async () => {
    // 23:30 UTC on 23 November is 00:30 on the 24th in Brussels (the seed's zone).
    const id = await transaction({ completedAt: new Date('2026-11-23T23:30:00Z') });
    const before = await tdb.selectFrom('daily_stats').selectAll().where('date', '=', '2026-11-24').executeTakeFirst();
    await Promise.all([addToDailyStats(tdb, id), addToDailyStats(tdb, id), addToDailyStats(tdb, id)]);
    const after = await tdb.selectFrom('daily_stats').selectAll().where('location_id', '=', m.locations[0]!.id).where('date', '=', '2026-11-24').executeTakeFirstOrThrow();
    expect(after.transactions - (before?.transactions ?? 0)).toBe(1);
    expect(Number(after.total) - Number(before?.total ?? 0)).toBe(250);
    expect(await listSteps(tdb, id)).toEqual([{ step: 'daily_stats', outcome: 'ok', detail: '2026-11-24' }]);
    await expect(addToDailyStats(tdb, crypto.randomUUID())).rejects.toMatchObject({ name: 'AppError', code: 'not_found' });
  });

  test('test mode with a cart session: release queued, stats skipped, finalisation last, no edge sync without a stock change', async () => {
    const id = await transaction({ isTest: true, cart: 'cart-123' });
    await runPostCapture(tdb, m.merchant.tenant_database, id, false, [writeKitchenItems]);
    expect(await listSteps(tdb, id)).toEqual([
      { step: 'reread', outcome: 'ok', detail: null },
      { step: 'payment_captured', outcome: 'ok', detail: '1 kitchen items' },
      { step: 'queue_jobs', outcome: 'ok', detail: null },
      { step: 'queued:order.dispatch', outcome: 'ok', detail: null },
      { step: 'queued:stock.release-reservation', outcome: 'ok', detail: null },
      { step: 'queued:stats.daily', outcome: 'skipped', detail: 'test mode' },
      { step: 'queued:payment.finalise', outcome: 'ok', detail: null },
    ]);
    expect(await outboxJobs(id)).toEqual(['order.dispatch', 'stock.release-reservation', 'payment.finalise']);
    const release = await env.handle.db.selectFrom('outbox').select(['queue', 'payload']).where('job', '=', 'stock.release-reservation').where(sql<string>`payload->>'transaction_id'`, '=', id).executeTakeFirstOrThrow();
    expect(release).toEqual({ queue: 'payments', payload: { tenant_database: m.merchant.tenant_database, transaction_id: id, cart_session_id: 'cart-123' } });

    // Delivered again (twice at once): nothing more is queued or recorded.
    await Promise.all([runPostCapture(tdb, m.merchant.tenant_database, id, false, [writeKitchenItems]), runPostCapture(tdb, m.merchant.tenant_database, id, false, [writeKitchenItems])]);
    expect((await listSteps(tdb, id)).length).toBe(7);
    expect(await outboxJobs(id)).toEqual(['order.dispatch', 'stock.release-reservation', 'payment.finalise']);
  });

  test('the re-read returns the transaction and its lines exactly as the record readers do, and records its step once', async () => {
    const id = await transaction();
    await tdb.insertInto('transaction_lines').values({ transaction_id: id, position: 1, item_id: m.items[1]!.id, category_id: null, name: 'Second', qty: 1, unit_price: 99, vat_rate: '6.00', gross: 99, discount: 0, total: 99, modifiers: JSON.stringify([{ name: 'Oat milk', price: 40 }]), variant: JSON.stringify({ name: 'Large' }) }).execute();
    const a = await rereadTransaction(tdb, id);
    const b = await rereadTransaction(tdb, id);
    expect(a.t).toEqual(await loadTransaction(tdb, id));
    expect(a.lines).toEqual(await loadLines(tdb, id));
    expect(a.lines.map((l) => [l.position, l.vat_rate, l.modifiers, l.variant])).toEqual([
      [0, (await loadLines(tdb, id))[0]!.vat_rate, [], null],
      [1, '6.00', [{ name: 'Oat milk', price: 40 }], { name: 'Large' }],
    ]);
    expect(b).toEqual(a);
    expect(await listSteps(tdb, id)).toEqual([{ step: 'reread', outcome: 'ok', detail: null }]);
  });

  test('a transaction that is not Complete gets no step and no job', async () => {
    const id = await transaction({ status: 'Awaiting Payment' });
    await expect(runPostCapture(tdb, m.merchant.tenant_database, id, true)).rejects.toThrow(`post-capture of transaction ${id} in status Awaiting Payment`);
    expect(await listSteps(tdb, id)).toEqual([]);
    expect(await outboxJobs(id)).toEqual([]);
    await expect(runPostCapture(tdb, m.merchant.tenant_database, crypto.randomUUID(), true)).rejects.toMatchObject({ name: 'AppError', code: 'not_found' });
  });
});
