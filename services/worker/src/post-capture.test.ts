import { registerSyncOf } from '@pos/core/payments/transaction-records';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { bindTenant, type TenantDb } from '@pos/db';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { seedDemo, type DemoSeedResult } from '@pos/core/seed/demo-seed';
import { paymentProvidersFromEnv } from '@pos/core/payments/payment-providers';
import { createKioskIntent } from '@pos/core/payments/create-kiosk-intent';
import { getKioskPaymentDetails } from '@pos/core/payments/kiosk-payment-queries';
import { listSteps, runPostCapture } from '@pos/core/payments/post-capture';
import { startCardBSimulator, type CardBSimulator } from '@pos/providers/payments';
import { startWorker, stopWorker, type RunningWorker } from './worker.ts';
import { createRedis } from '@pos/kernel';
import { rowMessages } from '@pos/kernel/queues/index';
import { capturePayment } from '@pos/core/payments/capture-payment';
import { dropPrefix, openTestEnv, testWorkerDeps, uniquePrefix, waitFor, type TestEnv } from './test-support.ts';

/**
 * The post-capture sequence through the real worker (spec 3): the kiosk's details route dispatches
 * `payment.capture` through the outbox, the worker polls card-b (simulator over HTTP), captures, and
 * the post-capture job runs the steps in the spec's order. The recorded trace proves the order.
 */
let env: TestEnv;
let sim: CardBSimulator;
let worker: RunningWorker;
let m: DemoSeedResult;
let tdb: TenantDb;
const prefix = uniquePrefix();
const providers = () => paymentProvidersFromEnv({ CARD_B_BASE_URL: sim.url, CARD_B_CLIENT_ID: 'pc', CARD_B_CLIENT_SECRET: 'pc-secret-1' });

beforeAll(async () => {
  env = await openTestEnv();
  sim = startCardBSimulator({ clientId: 'pc', clientSecret: 'pc-secret-1' });
  m = await seedDemo(env.handle.db, { slug: `pc-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: 'k'.repeat(20), pinPepper: 'p'.repeat(20) });
  tdb = bindTenant(env.handle.db, m.merchant.tenant_database);
  worker = await startWorker({
    ...testWorkerDeps(env, prefix),
    relayIntervalMs: 25,
    payments: providers(),
  });
});
afterAll(async () => {
  await stopWorker(worker);
  await dropPrefix(env.redis, prefix);
  await dropMerchant(env.handle.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
  await sim.stop();
  await env.close();
});

const deps = () => ({ tdb, tenantDatabase: m.merchant.tenant_database, merchantId: m.merchant.id, redis: env.redis, providers: providers(), log: env.log, now: () => new Date() });

describe('post-capture sequence', () => {
  test('runs in the spec order, once, with the kitchen documents before the register dispatch (recorded trace)', async () => {
    const device = await tdb.selectFrom('devices').selectAll().where('id', '=', m.kiosk.device_id).executeTakeFirstOrThrow();
    const espresso = m.items.find((i) => i.name === 'Espresso')!;
    await tdb.insertInto('inventory_levels').values({ item_id: espresso.id, location_id: m.locations[0]!.id, quantity: 10 }).execute();
    const { transaction: t } = await createKioskIntent(deps(), device, { lines: [{ item_id: espresso.id, qty: 3 }, { item_id: m.items.find((i) => i.name === 'Croissant')!.id, qty: 1 }] });
    expect(t.status).toBe('Awaiting Payment');
    // The checkout holds the tracked espressos (the untracked croissant is not held); the order names its hold.
    expect(t.cart_session_id).toBe(t.id);
    expect(await tdb.selectFrom('stock_reservations').select(['item_id', 'qty']).where('transaction_id', '=', t.id).execute()).toEqual([{ item_id: espresso.id, qty: 3 }]);
    await sim.complete(t.idempotency_key);
    const details = await getKioskPaymentDetails(deps(), device, t.idempotency_key);
    expect(details.capture).toBe('dispatched');

    await waitFor(async () => (await listSteps(tdb, t.id)).some((s) => s.step === 'finalise') && (await listSteps(tdb, t.id)).some((s) => s.step === 'register_dispatch') && (await listSteps(tdb, t.id)).some((s) => s.step === 'edge_stock_sync') && (await listSteps(tdb, t.id)).some((s) => s.step === 'daily_stats') && (await listSteps(tdb, t.id)).some((s) => s.step === 'stock_release'), 15_000, 'post-capture jobs');
    const steps = await listSteps(tdb, t.id);
    const names = steps.map((s) => s.step);
    // Capture and the sequence's own steps, strictly in this order.
    expect(names.slice(0, 4)).toEqual(['capture', 'reread', 'payment_captured', 'queue_jobs']);
    // The jobs queued, in the spec's order (the claim's detail), ran after they were queued; the register dispatch saw every kitchen document.
    expect(JSON.parse(steps.find((s) => s.step === 'queue_jobs')!.detail!)).toEqual({ queued: ['order.dispatch', 'stock.release-reservation', 'stats.daily', 'payment.finalise', 'stock.edge-sync'] });
    expect(names.slice(4).sort()).toEqual(['daily_stats', 'edge_stock_sync', 'finalise', 'register_dispatch', 'stock_release']);
    expect(steps.find((s) => s.step === 'stock_release')).toEqual({ step: 'stock_release', outcome: 'released', detail: `cart ${t.id}: 1 item hold(s) released` });
    expect(await tdb.selectFrom('stock_reservations').select('item_id').where('transaction_id', '=', t.id).execute()).toEqual([]);
    expect(steps.find((s) => s.step === 'register_dispatch')).toEqual({ step: 'register_dispatch', outcome: 'not_configured', detail: 'No register is configured for this location.' });
    expect(JSON.parse(steps.find((s) => s.step === 'finalise')!.detail!)).toEqual({
      loyalty_earn: 'skipped: no customer',
      offer_redemption: 'skipped: no offer',
      customer_timeline: 'skipped: no customer',
      kiosk_customer_name: 'skipped: no customer',
      b2b_invoice: 'skipped: no B2B customer',
    });
    // The outbox rows of the sequence (ids are commit order): the capture, the post-capture job, then one
    // row carrying the four follow-up jobs in the spec's order.
    const rows = await env.handle.db.selectFrom('outbox').select(['id', 'job', 'payload']).orderBy('id').execute();
    const mine = rows.filter((r) => rowMessages(r).some((x) => (x.payload as { transaction_id?: string }).transaction_id === t.id));
    expect(mine.map((r) => r.job)).toEqual(['payment.capture', 'payment.post-capture', 'outbox.fan-out']);
    expect(rowMessages(mine[2]!).map((x) => x.job)).toEqual(['order.dispatch', 'stock.release-reservation', 'stats.daily', 'payment.finalise', 'stock.edge-sync']);

    const after = await tdb.selectFrom('transactions').selectAll().where('id', '=', t.id).executeTakeFirstOrThrow();
    expect(after).toMatchObject({ status: 'Complete', order_status: 'Queued', receipt_no: 1, loyalty_token: null });
    // The capture job ran: its dispatch marker is gone, so a later poll could dispatch again.
    expect(await env.redis.exists(`payment_capture_dispatch_${m.merchant.tenant_database}_${t.id}`)).toBe(0);
    expect(await registerSyncOf(tdb, t.id)).toEqual({ status: 'not_configured', detail: 'No register is configured for this location.' });
    const kitchen = await tdb.selectFrom('kitchen_items').select(['name', 'qty', 'order_no']).where('transaction_id', '=', t.id).orderBy('position').execute();
    expect(kitchen).toEqual([
      { name: 'Espresso', qty: 3, order_no: t.order_no },
      { name: 'Croissant', qty: 1, order_no: t.order_no },
    ]);
    // The kitchen ticket of the seed's station (it serves every category), with both lines.
    const tickets = await tdb.selectFrom('kitchen_tickets').selectAll().where('source_id', '=', t.id).execute();
    expect(tickets.map((k) => [k.station_id, k.source, k.order_no, k.status])).toEqual([[m.kds.station_id, 'transaction', String(t.order_no), 'Queued']]);
    expect((await tdb.selectFrom('kitchen_ticket_lines').select(['name', 'qty']).where('ticket_id', '=', tickets[0]!.id).orderBy('position').execute())).toEqual([
      { name: 'Espresso', qty: 3 },
      { name: 'Croissant', qty: 1 },
    ]);
    expect((await tdb.selectFrom('inventory_levels').select('quantity').where('item_id', '=', espresso.id).executeTakeFirstOrThrow()).quantity).toBe(7);
    const stats = await tdb.selectFrom('daily_stats').selectAll().execute();
    expect(stats.map((s) => [s.transactions, Number(s.total)])).toEqual([[1, t.total]]);

    // A repeated post-capture run (a redelivered job) queues nothing more and counts nothing twice.
    await runPostCapture(tdb, m.merchant.tenant_database, t.id, true);
    const again = await env.handle.db.selectFrom('outbox').select(['job', 'payload']).execute();
    expect(again.filter((r) => rowMessages(r).some((x) => (x.payload as { transaction_id?: string }).transaction_id === t.id)).length).toBe(3);
    expect((await listSteps(tdb, t.id)).length).toBe(steps.length);
    expect((await tdb.selectFrom('kitchen_tickets').select('id').where('source_id', '=', t.id).execute()).length).toBe(1);
  }, 30_000);

  test('a captured kiosk order prints its receipt on the receipt printers and its ticket on the station\'s kitchen printer (issue 15)', async () => {
    const device = await tdb.selectFrom('devices').selectAll().where('id', '=', m.kiosk.device_id).executeTakeFirstOrThrow();
    const at = { last_reported_at: new Date(), created_at: new Date(), updated_at: new Date() };
    const receiptPrinter = crypto.randomUUID();
    const kitchenPrinter = crypto.randomUUID();
    await tdb
      .insertInto('printers')
      .values([
        { id: receiptPrinter, location_id: device.location_id, mac: '00:11:62:AB:00:01', state: 'paired', role: 'receipt', name: 'Counter', ...at },
        { id: kitchenPrinter, location_id: device.location_id, mac: '00:11:62:AB:00:02', state: 'paired', role: 'kitchen', station_id: m.kds.station_id, name: 'Kitchen', ...at },
      ])
      .execute();
    const espresso = m.items.find((i) => i.name === 'Espresso')!;
    const { transaction: t } = await createKioskIntent(deps(), device, { lines: [{ item_id: espresso.id, qty: 2 }] });
    await sim.complete(t.idempotency_key);
    await getKioskPaymentDetails(deps(), device, t.idempotency_key);
    const jobs = await waitFor(
      async () => {
        const rows = await tdb.selectFrom('print_jobs').select(['printer_id', 'kind', 'source_key', 'document']).where('printer_id', 'in', [receiptPrinter, kitchenPrinter]).orderBy('seq').execute();
        return rows.length >= 2 ? rows : undefined;
      },
      15_000,
      'print jobs',
    );
    const ticket = await tdb.selectFrom('kitchen_tickets').select('id').where('source_id', '=', t.id).executeTakeFirstOrThrow();
    expect(jobs.map((j) => [j.printer_id, j.kind, j.source_key])).toEqual([
      [kitchenPrinter, 'kitchen_ticket', `ticket:${ticket.id}`],
      [receiptPrinter, 'order_receipt', `order:${t.id}`],
    ]);
    expect(jobs[0]!.document).toContain(`Order ${t.order_no}`);
    expect(jobs[1]!.document).toContain(`Kiosk order ${t.order_no}`);
    expect(jobs[1]!.document).toContain('2 x Espresso');
  });

  test('a Redis outage during capture loses no step: the capture commits on the row lock, the outbox carries the sequence', async () => {
    const device = await tdb.selectFrom('devices').selectAll().where('id', '=', m.kiosk.device_id).executeTakeFirstOrThrow();
    const { transaction: t } = await createKioskIntent(deps(), device, { lines: [{ item_id: m.items[0]!.id, qty: 1 }] });
    await sim.complete(t.idempotency_key);
    // Redis unreachable for the capture: no lock, no real-time push; the database decides alone.
    const dead = createRedis('redis://127.0.0.1:1', 'dead');
    dead.on('error', () => {});
    try {
      const r = await capturePayment({ ...deps(), redis: dead }, t.id, { kind: 'poll' });
      expect(r).toEqual({ status: 'Complete', completed: true, changed: true });
      const again = await capturePayment({ ...deps(), redis: dead }, t.id, { kind: 'poll' });
      expect(again).toEqual({ status: 'Complete', completed: false, changed: false });
    } finally {
      dead.disconnect();
    }
    // Once Redis is back (the worker's own connection), every step runs, once.
    await waitFor(async () => {
      const names = (await listSteps(tdb, t.id)).map((s) => s.step);
      return ['finalise', 'register_dispatch', 'daily_stats'].every((n) => names.includes(n)) ? names : undefined;
    }, 15_000, 'post-capture after the outage');
    const names = (await listSteps(tdb, t.id)).map((s) => s.step);
    expect(names.slice(0, 4)).toEqual(['capture', 'reread', 'payment_captured', 'queue_jobs']);
    expect(names.filter((n) => n === 'capture').length).toBe(1);
  }, 30_000);
});
