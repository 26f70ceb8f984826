import { rowMessages } from '@pos/kernel/queues/index';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { bindTenant, dbQueryCount, type TenantDb } from '@pos/db';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { seedDemo, type DemoSeedResult } from '@pos/core/seed/demo-seed';
import { addManyToDailyStats, addToDailyStats, dispatchOrderToRegister, dispatchOrdersToRegister, finalisePayments, listSteps, rereadTransaction, runPostCapture, runPostCaptureMany, writeKitchenItems, writeKitchenTickets } from '@pos/core/payments/post-capture';
import { loadLines, loadTransaction, registerSyncOf } from '@pos/core/payments/transaction-records';
import { CAPTURED_COLUMNS, CAPTURED_LINE_COLUMNS } from '@pos/core/payments/captured-order';
import { deleteTenantOutbox, openTestEnv, type TestEnv } from './test-support.ts';

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
  await deleteTenantOutbox(env.handle.db, m.merchant.tenant_database);
  await dropMerchant(env.handle.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
  await env.close();
});

let orderNo = 0;
async function transaction(opts: { status?: 'Complete' | 'Awaiting Payment'; completedAt?: Date; isTest?: boolean; cart?: string | null; variant?: unknown } = {}): Promise<string> {
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
    .values({ transaction_id: id, position: 0, item_id: item.id, category_id: null, name: item.name, qty: 2, unit_price: 125, vat_rate: item.vat_rate, gross: 250, discount: 0, total: 250, modifiers: JSON.stringify([]), variant: opts.variant === undefined ? null : JSON.stringify(opts.variant) })
    .execute();
  return id;
}

/** The jobs queued for a transaction, in outbox order (a fan-out row's in its order). */
const outboxMessages = async (id: string) =>
  (await env.handle.db.selectFrom('outbox').select(['job', 'payload']).orderBy('id').execute())
    .flatMap((r) => rowMessages(r))
    .filter((m) => (m.payload as { transaction_id?: string }).transaction_id === id);
const outboxJobs = async (id: string) => (await outboxMessages(id)).map((m) => m.job);

describe('post-capture steps, one statement each', () => {
  test('the kitchen sees the variants chosen: the kitchen item document and the ticket line name them with the item', async () => {
    const item = m.items[0]!;
    const id = await transaction({ variant: { id: crypto.randomUUID(), name: 'Large / Oat milk', variants: [{ id: 'a', name: 'Large' }, { id: 'b', name: 'Oat milk' }] } });
    const plain = await transaction();
    // Routed to the seed's station by the item's category.
    const { category_id } = await tdb.selectFrom('items').select('category_id').where('id', '=', item.id).executeTakeFirstOrThrow();
    await tdb.updateTable('transaction_lines').set({ category_id }).where('transaction_id', 'in', [id, plain]).execute();
    await runPostCaptureMany(tdb, m.merchant.tenant_database, [id, plain].map((transaction_id) => ({ transaction_id, stock_changed: false })), [writeKitchenItems, writeKitchenTickets]);
    const docs = await tdb.selectFrom('kitchen_items').select(['transaction_id', 'name']).where('transaction_id', 'in', [id, plain]).execute();
    expect(Object.fromEntries(docs.map((d) => [d.transaction_id, d.name]))).toEqual({ [id]: `${item.name} (Large / Oat milk)`, [plain]: item.name });
    const ticketLines = await tdb
      .selectFrom('kitchen_ticket_lines as l')
      .innerJoin('kitchen_tickets as t', 't.id', 'l.ticket_id')
      .select(['t.source_id', 'l.name'])
      .where('t.source_id', 'in', [id, plain])
      .execute();
    expect(ticketLines.length).toBeGreaterThanOrEqual(2);
    for (const l of ticketLines) expect(l.name).toBe(l.source_id === id ? `${item.name} (Large / Oat milk)` : item.name);
    // The created event the screens receive carries the same name.
    const events = await tdb.selectFrom('kitchen_events as e').innerJoin('kitchen_tickets as t', 't.id', 'e.ticket_id').select(['e.payload']).where('t.source_id', '=', id).execute();
    expect(events.length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(events[0]!.payload)).toContain(`${item.name} (Large / Oat milk)`);
  });

  test('the register dispatch refuses before the kitchen documents exist, then records that no register is configured', async () => {
    const id = await transaction();
    await expect(dispatchOrderToRegister(tdb, id)).rejects.toThrow(`order ${id}: kitchen item documents not written yet`);
    expect(await listSteps(tdb, id)).toEqual([]);
    expect((await registerSyncOf(tdb, id)).status).toBeNull();

    const t = await loadTransaction(tdb, id);
    await writeKitchenItems(tdb, [{ t, lines: await loadLines(tdb, id) }]);
    await dispatchOrderToRegister(tdb, id);
    await dispatchOrderToRegister(tdb, id);
    expect(await listSteps(tdb, id)).toEqual([{ step: 'register_dispatch', outcome: 'not_configured', detail: 'No register is configured for this location.' }]);
    expect(await registerSyncOf(tdb, id)).toEqual({ status: 'not_configured', detail: 'No register is configured for this location.' });

    // No such transaction (a deleted test-mode one): the dispatch ends as done, records nothing.
    const unknown = crypto.randomUUID();
    expect(await dispatchOrderToRegister(tdb, unknown)).toBeUndefined();
    expect(await listSteps(tdb, unknown)).toEqual([]);
  });

  test('an order cancelled after its capture and before its post-capture (a marketplace cancelling): nothing for the kitchen, the dispatch ends without waiting for kitchen documents', async () => {
    const id = await transaction();
    await tdb.updateTable('transactions').set({ order_status: 'Cancelled' }).where('id', '=', id).execute();
    // Before: its kitchen item documents and ticket were written, and the register was sent a paid order.
    const announced: string[] = [];
    expect(await runPostCaptureMany(tdb, m.merchant.tenant_database, [{ transaction_id: id, stock_changed: false }], undefined, undefined, async (orders) => void announced.push(...orders.map((o) => o.t.id)))).toEqual([null]);
    // No `kitchen.order` push to the kitchen screens either.
    expect(announced).toEqual([]);
    expect(await tdb.selectFrom('kitchen_items').select('transaction_id').where('transaction_id', '=', id).execute()).toEqual([]);
    expect(await tdb.selectFrom('kitchen_tickets').select('id').where('source_id', '=', id).execute()).toEqual([]);
    expect((await listSteps(tdb, id)).map((s) => s.step)).toEqual(expect.arrayContaining(['reread', 'payment_captured', 'queue_jobs']));
    expect(await dispatchOrdersToRegister(tdb, [id])).toEqual([null]);
    expect((await listSteps(tdb, id)).find((s) => s.step === 'register_dispatch')).toEqual({ step: 'register_dispatch', outcome: 'not_configured', detail: 'No register is configured for this location.' });
  });

  test('an order cancelled after its post-capture read it gets no kitchen ticket: cancelled before the ticket write, or while the write waits on its row', async () => {
    // Routed to the seed's station by the item's category.
    const category = (await tdb.selectFrom('items').select('category_id').where('id', '=', m.items[0]!.id).executeTakeFirstOrThrow()).category_id;
    const tickets = (id: string) => tdb.selectFrom('kitchen_tickets').select('id').where('source', '=', 'transaction').where('source_id', '=', id).execute();
    const cancelled = (id: string) => tdb.updateTable('transactions').set({ order_status: 'Cancelled' }).where('id', '=', id).execute();
    const [before, during, control] = [await transaction(), await transaction(), await transaction()];
    await tdb.updateTable('transaction_lines').set({ category_id: category }).where('transaction_id', 'in', [before, during, control]).execute();
    const [readBefore, readDuring, readControl] = [await rereadTransaction(tdb, before), await rereadTransaction(tdb, during), await rereadTransaction(tdb, control)];

    // Cancelled (a marketplace's cancel) after the re-read, before the listener writes.
    await cancelled(before);
    await writeKitchenTickets(tdb, [readBefore]);

    // Cancelled by a transaction holding the order's row while the listener writes: the write waits, then reads the row again.
    let locked!: () => void;
    let release!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const held = new Promise<void>((r) => (release = r));
    const cancelling = tdb.transaction().execute(async (tx) => {
      await tx.selectFrom('transactions').select('id').where('id', '=', during).forUpdate().execute();
      await tx.updateTable('transactions').set({ order_status: 'Cancelled' }).where('id', '=', during).execute();
      locked();
      await held;
    });
    await isLocked;
    const writing = writeKitchenTickets(tdb, [readDuring]);
    await Bun.sleep(300);
    release();
    await cancelling;
    await writing;

    // Before: both got a ticket nothing would ever withdraw (the cancel had already looked for tickets).
    expect(await tickets(before)).toEqual([]);
    expect(await tickets(during)).toEqual([]);
    await writeKitchenTickets(tdb, [readControl]);
    expect(await tickets(control)).toHaveLength(1);
  });

  test('the edge stock sync is a final block (spec 3 step 7): a failing kitchen step still queues it when stock changed, once however often the job is retried', async () => {
    const id = await transaction();
    const failing = async () => {
      throw new Error('kitchen ticket listener failed');
    };
    // Before: nothing was queued, the edge sync included, though the capture had moved the stock.
    for (let run = 0; run < 2; run++) {
      await expect(runPostCaptureMany(tdb, m.merchant.tenant_database, [{ transaction_id: id, stock_changed: true }], [writeKitchenItems, failing])).rejects.toThrow('kitchen ticket listener failed');
    }
    expect(await outboxJobs(id)).toEqual(['stock.edge-sync']);
    // Without a stock change there is nothing to sync.
    const still = await transaction();
    await expect(runPostCaptureMany(tdb, m.merchant.tenant_database, [{ transaction_id: still, stock_changed: false }], [failing])).rejects.toThrow();
    expect(await outboxJobs(still)).toEqual([]);
  });

  test('a table QR order names its table on the kitchen ticket and the receipt ("Terrace 7 · 12"); other orders keep their number', async () => {
    const loc = m.locations[0]!.id;
    const section = Bun.randomUUIDv7();
    const session = Bun.randomUUIDv7();
    const now = new Date();
    await tdb.insertInto('table_sections').values({ id: section, location_id: loc, name: 'Terrace', tables: 12, created_at: now, updated_at: now }).execute();
    await tdb.insertInto('table_sessions').values({ id: session, location_id: loc, table_section_id: section, table_number: 7, opened_at: now }).execute();
    const atTable = await transaction();
    const plain = await transaction();
    await tdb.updateTable('transactions').set({ channel: 'table_qr', table_session_id: session }).where('id', '=', atTable).execute();
    // Routed to the seed's station by the item's category.
    const category = (await tdb.selectFrom('items').select('category_id').where('id', '=', m.items[0]!.id).executeTakeFirstOrThrow()).category_id;
    await tdb.updateTable('transaction_lines').set({ category_id: category }).where('transaction_id', 'in', [atTable, plain]).execute();
    const printer = Bun.randomUUIDv7();
    await tdb.insertInto('printers').values({ id: printer, location_id: loc, mac: `00:11:22:${printer.slice(-8, -6)}:${printer.slice(-6, -4)}:${printer.slice(-4, -2)}`, state: 'configured', role: 'receipt', last_reported_at: now, created_at: now, updated_at: now }).execute();
    try {
      expect(await runPostCaptureMany(tdb, m.merchant.tenant_database, [atTable, plain].map((transaction_id) => ({ transaction_id, stock_changed: false })))).toEqual([null, null]);
      const orderNo = async (id: string) => (await tdb.selectFrom('transactions').select('order_no').where('id', '=', id).executeTakeFirstOrThrow()).order_no;
      const tickets = async (id: string) => (await tdb.selectFrom('kitchen_tickets').select('order_no').where('source_id', '=', id).execute()).map((r) => r.order_no);
      // Before: the kitchen read only the order number, so nobody knew which table to take the food to.
      expect(await tickets(atTable)).toEqual([`Terrace 7 · ${await orderNo(atTable)}`]);
      expect(await tickets(plain)).toEqual([String(await orderNo(plain))]);
      const receipts = await tdb.selectFrom('print_jobs').select(['source_key', 'document']).where('printer_id', '=', printer).execute();
      const receiptOf = (id: string) => JSON.stringify(receipts.find((r) => r.source_key === `order:${id}`)?.document ?? null);
      expect(receiptOf(atTable)).toContain(`${await orderNo(atTable)} · Terrace 7`);
      expect(receiptOf(plain)).not.toContain('Terrace');
    } finally {
      await tdb.deleteFrom('print_jobs').where('printer_id', '=', printer).execute();
      await tdb.deleteFrom('printers').where('id', '=', printer).execute();
    }
  });

  test('a scheduled order reaches the kitchen when paid with its due time: on the ticket, the screen\'s event and the printed kitchen ticket (the location\'s time)', async () => {
    const loc = m.locations[0]!.id;
    const now = new Date();
    const scheduled = await transaction();
    const forNow = await transaction();
    // Tomorrow's lunch, paid today (an online order for a later slot): 12:30 in Brussels.
    await tdb.updateTable('transactions').set({ channel: 'online_ordering', scheduled_for: new Date('2026-12-01T11:30:00Z') }).where('id', '=', scheduled).execute();
    const category = (await tdb.selectFrom('items').select('category_id').where('id', '=', m.items[0]!.id).executeTakeFirstOrThrow()).category_id;
    await tdb.updateTable('transaction_lines').set({ category_id: category }).where('transaction_id', 'in', [scheduled, forNow]).execute();
    const printer = Bun.randomUUIDv7();
    await tdb.insertInto('printers').values({ id: printer, location_id: loc, mac: `00:11:23:${printer.slice(-8, -6)}:${printer.slice(-6, -4)}:${printer.slice(-4, -2)}`, state: 'configured', role: 'kitchen', station_id: m.kds.station_id, last_reported_at: now, created_at: now, updated_at: now }).execute();
    try {
      expect(await runPostCaptureMany(tdb, m.merchant.tenant_database, [scheduled, forNow].map((transaction_id) => ({ transaction_id, stock_changed: false })), [writeKitchenItems, writeKitchenTickets])).toEqual([null, null]);
      const tickets = await tdb.selectFrom('kitchen_tickets').select(['id', 'source_id', 'due_at']).where('source_id', 'in', [scheduled, forNow]).execute();
      // Before: no ticket said when the order was due, so the kitchen cooked tomorrow's order at once.
      expect(tickets.filter((t) => t.source_id === scheduled).map((t) => t.due_at?.toISOString())).toEqual(['2026-12-01T11:30:00.000Z']);
      expect(tickets.filter((t) => t.source_id === forNow).map((t) => t.due_at)).toEqual([null]);
      const events = await tdb.selectFrom('kitchen_events').select(['ticket_id', 'payload']).where('ticket_id', 'in', tickets.map((t) => t.id)).execute();
      const dueOf = (source: string) => events.filter((e) => tickets.find((t) => t.id === e.ticket_id)!.source_id === source).map((e) => (e.payload as { order: { due_at: string | null } }).order.due_at);
      expect(dueOf(scheduled)).toEqual(['2026-12-01T11:30:00.000Z']);
      expect(dueOf(forNow)).toEqual([null]);
      const jobs = await tdb.selectFrom('print_jobs').select(['source_key', 'document']).where('printer_id', '=', printer).execute();
      const printed = (id: string) => JSON.stringify(jobs.find((j) => j.source_key === `ticket:${tickets.find((t) => t.source_id === id)!.id}`)?.document ?? null);
      expect(printed(scheduled)).toContain('Due 01/12/2026 12:30');
      expect(printed(forNow)).not.toContain('Due');
    } finally {
      await tdb.deleteFrom('print_jobs').where('printer_id', '=', printer).execute();
      await tdb.deleteFrom('printers').where('id', '=', printer).execute();
    }
  });

  test('"no register" is the step alone; a sync row an earlier dispatch left is brought up to date, unless a register took the order', async () => {
    const fresh = await transaction();
    const earlier = await transaction();
    const taken = await transaction();
    for (const id of [fresh, earlier, taken]) await writeKitchenItems(tdb, [{ t: await loadTransaction(tdb, id), lines: await loadLines(tdb, id) }]);
    // `earlier` was refused by a register before (since removed from the location); `retry-sync` dispatches it again.
    await tdb.insertInto('transaction_register_sync').values({ transaction_id: earlier, status: 'failed', detail: 'register-b refused it' }).execute();
    // The per-order path recorded its step with that outcome: the new outcome replaces it, as that path's upsert does.
    await tdb.insertInto('transaction_steps').values({ transaction_id: earlier, step: 'register_dispatch', outcome: 'failed', detail: 'register-b refused it' }).execute();
    // `taken` is at register-b (a sweep runs its dispatch again): it stays recorded there, step and row, so
    // `retry-sync` cannot send it to a second register.
    await tdb.insertInto('transaction_register_sync').values({ transaction_id: taken, status: 'synced', detail: 'register-b order 77' }).execute();
    await tdb.insertInto('transaction_steps').values({ transaction_id: taken, step: 'register_dispatch', outcome: 'synced', detail: 'register-b order 77' }).execute();

    expect(await dispatchOrdersToRegister(tdb, [earlier, fresh, taken])).toEqual([null, null, null]);
    expect(await registerSyncOf(tdb, taken)).toEqual({ status: 'synced', detail: 'register-b order 77' });
    expect(await listSteps(tdb, taken)).toEqual([{ step: 'register_dispatch', outcome: 'synced', detail: 'register-b order 77' }]);
    const rows = await tdb.selectFrom('transaction_register_sync').select(['transaction_id', 'status', 'detail']).where('transaction_id', 'in', [fresh, earlier]).execute();
    expect(rows).toEqual([{ transaction_id: earlier, status: 'not_configured', detail: 'No register is configured for this location.' }]);
    for (const id of [fresh, earlier]) {
      expect(await registerSyncOf(tdb, id)).toEqual({ status: 'not_configured', detail: 'No register is configured for this location.' });
      expect(await listSteps(tdb, id)).toEqual([{ step: 'register_dispatch', outcome: 'not_configured', detail: 'No register is configured for this location.' }]);
    }
    // Run again (a retried job): nothing changes, and the unchanged step is not written again.
    const before = await tdb.selectFrom('transaction_steps').select(sql<string>`xmin::text`.as('v')).where('transaction_id', '=', earlier).where('step', '=', 'register_dispatch').executeTakeFirstOrThrow();
    expect(await dispatchOrdersToRegister(tdb, [earlier, fresh])).toEqual([null, null]);
    const after = await tdb.selectFrom('transaction_steps').select(sql<string>`xmin::text`.as('v')).where('transaction_id', '=', earlier).where('step', '=', 'register_dispatch').executeTakeFirstOrThrow();
    expect(after.v).toBe(before.v);
    expect(await listSteps(tdb, earlier)).toEqual([{ step: 'register_dispatch', outcome: 'not_configured', detail: 'No register is configured for this location.' }]);
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
      { step: 'queue_jobs', outcome: 'ok', detail: JSON.stringify({ queued: ['order.dispatch', 'stock.release-reservation', 'payment.finalise'], skipped: { 'stats.daily': 'test mode' } }) },
    ]);
    expect(await outboxJobs(id)).toEqual(['order.dispatch', 'stock.release-reservation', 'payment.finalise']);
    const release = (await outboxMessages(id)).find((x) => x.job === 'stock.release-reservation')!;
    expect(release.payload).toEqual({ tenant_database: m.merchant.tenant_database, transaction_id: id, cart_session_id: 'cart-123' });

    // Delivered again (twice at once): nothing more is queued or recorded.
    await Promise.all([runPostCapture(tdb, m.merchant.tenant_database, id, false, [writeKitchenItems]), runPostCapture(tdb, m.merchant.tenant_database, id, false, [writeKitchenItems])]);
    expect((await listSteps(tdb, id)).length).toBe(3);
    expect(await outboxJobs(id)).toEqual(['order.dispatch', 'stock.release-reservation', 'payment.finalise']);
  });

  test('the re-read returns the captured columns of the transaction and its lines exactly as the record readers do, and records its step once', async () => {
    const id = await transaction();
    await tdb.insertInto('transaction_lines').values({ transaction_id: id, position: 1, item_id: m.items[1]!.id, category_id: null, name: 'Second', qty: 1, unit_price: 99, vat_rate: '6.00', gross: 99, discount: 0, total: 99, modifiers: JSON.stringify([{ name: 'Oat milk', price: 40 }]), variant: JSON.stringify({ name: 'Large' }) }).execute();
    const a = await rereadTransaction(tdb, id);
    const b = await rereadTransaction(tdb, id);
    const pick = <T extends object, K extends keyof T>(row: T, keys: readonly K[]) => Object.fromEntries(keys.map((k) => [k, row[k]]));
    expect(a.t).toEqual(pick(await loadTransaction(tdb, id), CAPTURED_COLUMNS) as never);
    expect(Object.keys(a.t).sort()).toEqual([...CAPTURED_COLUMNS].sort());
    expect(a.lines).toEqual((await loadLines(tdb, id)).map((l) => pick(l, CAPTURED_LINE_COLUMNS)) as never);
    expect(a.lines.map((l) => [l.position, l.category_id, l.unit_price, l.modifiers])).toEqual([
      [0, (await loadLines(tdb, id))[0]!.category_id, (await loadLines(tdb, id))[0]!.unit_price, []],
      [1, null, 99, [{ name: 'Oat milk', price: 40 }]],
    ]);
    expect(b).toEqual(a);
    expect(await listSteps(tdb, id)).toEqual([{ step: 'reread', outcome: 'ok', detail: null }]);
  });

  test('a transaction that is not Complete gets no step and no job', async () => {
    const id = await transaction({ status: 'Awaiting Payment' });
    await expect(runPostCapture(tdb, m.merchant.tenant_database, id, true)).rejects.toThrow(`post-capture of transaction ${id} in status Awaiting Payment`);
    expect(await listSteps(tdb, id)).toEqual([]);
    expect(await outboxJobs(id)).toEqual([]);
    // No such transaction (a deleted test-mode one): nothing to do, nothing recorded, no retry.
    const unknown = crypto.randomUUID();
    expect(await runPostCapture(tdb, m.merchant.tenant_database, unknown, true)).toBeUndefined();
    expect(await listSteps(tdb, unknown)).toEqual([]);
    expect(await outboxJobs(unknown)).toEqual([]);
  });
});

describe('post-capture steps for a batch, one statement per step', () => {
  const statements = async (run: () => Promise<unknown>) => {
    const q0 = dbQueryCount();
    await run();
    return dbQueryCount() - q0;
  };
  const outcomes = (xs: readonly (Error | null)[]) => xs.map((x) => (x ? (x as { code?: string }).code ?? x.message : null));

  test('30 transactions cost the statements of 1; each gets its own steps and outbox rows in the spec order; a bad row fails alone', async () => {
    const one = await transaction();
    const many = await Promise.all(Array.from({ length: 30 }, () => transaction()));
    const pending = await transaction({ status: 'Awaiting Payment' });
    const unknown = crypto.randomUUID();
    const single = await statements(() => runPostCaptureMany(tdb, m.merchant.tenant_database, [{ transaction_id: one, stock_changed: true }], [writeKitchenItems]));
    let result: (Error | null)[] = [];
    const batch = await statements(async () => {
      result = await runPostCaptureMany(tdb, m.merchant.tenant_database, [...many.map((id) => ({ transaction_id: id, stock_changed: true })), { transaction_id: pending, stock_changed: true }, { transaction_id: unknown, stock_changed: false }], [writeKitchenItems]);
    });
    expect(single).toBe(3); // re-read, kitchen items, queue jobs
    expect(batch).toBe(single);
    // The unknown one (deleted) is done without a step; the pending one fails alone.
    expect(outcomes(result)).toEqual([...many.map(() => null), `post-capture of transaction ${pending} in status Awaiting Payment`, null]);
    expect(await listSteps(tdb, unknown)).toEqual([]);
    for (const id of [one, many[0]!, many[29]!]) {
      expect((await listSteps(tdb, id)).map((s) => s.step)).toEqual(['reread', 'payment_captured', 'queue_jobs']);
      expect(await outboxJobs(id)).toEqual(['order.dispatch', 'stats.daily', 'payment.finalise', 'stock.edge-sync']);
    }
    expect(await listSteps(tdb, pending)).toEqual([]);
    expect(await tdb.selectFrom('kitchen_items').select('transaction_id').where('transaction_id', 'in', many).execute()).toHaveLength(30);

    // The whole batch again (a retried job): nothing new is written.
    await runPostCaptureMany(tdb, m.merchant.tenant_database, many.map((id) => ({ transaction_id: id, stock_changed: true })), [writeKitchenItems]);
    expect((await listSteps(tdb, many[5]!)).length).toBe(3);
    expect(await outboxJobs(many[5]!)).toEqual(['order.dispatch', 'stats.daily', 'payment.finalise', 'stock.edge-sync']);
  });

  test('a batch some of whose transactions were queued already: its fan-out row carries only the others, in claim order and the spec order', async () => {
    const fanOutRows = async () => (await env.handle.db.selectFrom('outbox').select(['id', 'job', 'payload']).where('job', '=', 'outbox.fan-out').orderBy('id').execute()).map((r) => ({ id: r.id, messages: rowMessages(r) }));
    const ids = (await Promise.all(Array.from({ length: 6 }, () => transaction({ cart: null })))).sort();
    const edgeItems = [m.items[0]!.id];
    const before = (await fanOutRows()).map((r) => r.id);
    // Transactions 1 and 4 (of 0-5) ran their sequence first: a batch cut differently, relayed again.
    await runPostCaptureMany(tdb, m.merchant.tenant_database, [ids[4]!, ids[1]!].map((id) => ({ transaction_id: id, stock_changed: false })), [writeKitchenItems]);
    await runPostCaptureMany(tdb, m.merchant.tenant_database, [...ids].reverse().map((id, i) => ({ transaction_id: id, stock_changed: i % 2 === 0 })), [writeKitchenItems]);
    const rows = (await fanOutRows()).filter((r) => !before.includes(r.id));
    expect(rows).toHaveLength(2);
    const summary = (r: (typeof rows)[number]) => r.messages.map((x) => `${(x.payload as { transaction_id: string }).transaction_id}:${x.job}:${x.part}`);
    const follow = (id: string, edge: boolean, from: number) => [...['order.dispatch', 'stats.daily', 'payment.finalise'], ...(edge ? ['stock.edge-sync'] : [])].map((j, k) => `${id}:${j}:${from + k}`);
    // First run: claim order is id order (1 before 4), no edge sync (no stock change).
    expect(summary(rows[0]!)).toEqual([...follow(ids[1]!, false, 0), ...follow(ids[4]!, false, 3)]);
    // Second run: only 0, 2, 3 and 5, in id order, each with its own jobs (stock changed for 5, 3 and 1: the even places of the reversed list).
    expect(summary(rows[1]!)).toEqual([...follow(ids[0]!, false, 0), ...follow(ids[2]!, false, 3), ...follow(ids[3]!, true, 6), ...follow(ids[5]!, true, 10)]);
    const edge = rows[1]!.messages.find((x) => x.job === 'stock.edge-sync')!;
    expect(edge.payload).toEqual({ tenant_database: m.merchant.tenant_database, transaction_id: ids[3]!, location_id: m.locations[0]!.id, item_ids: edgeItems });
    // A third run claims nothing and writes no row.
    await runPostCaptureMany(tdb, m.merchant.tenant_database, ids.map((id) => ({ transaction_id: id, stock_changed: true })), [writeKitchenItems]);
    expect((await fanOutRows()).filter((r) => !before.includes(r.id))).toHaveLength(2);
  });

  test('the kitchen tickets of a batch: one per order at the seed station, none twice', async () => {
    const ids = await Promise.all(Array.from({ length: 5 }, () => transaction()));
    const category = (await tdb.selectFrom('items').select('category_id').where('id', '=', m.items[0]!.id).executeTakeFirstOrThrow()).category_id;
    await tdb.updateTable('transaction_lines').set({ category_id: category }).where('transaction_id', 'in', ids).execute();
    await runPostCaptureMany(tdb, m.merchant.tenant_database, ids.map((id) => ({ transaction_id: id, stock_changed: false })), [writeKitchenItems, writeKitchenTickets]);
    await runPostCaptureMany(tdb, m.merchant.tenant_database, ids.map((id) => ({ transaction_id: id, stock_changed: false })), [writeKitchenItems, writeKitchenTickets]);
    const tickets = await tdb.selectFrom('kitchen_tickets').select(['source_id', 'station_id']).where('source_id', 'in', ids).execute();
    expect(tickets.map((t) => t.source_id).sort()).toEqual([...ids].sort());
    expect(new Set(tickets.map((t) => t.station_id))).toEqual(new Set([m.kds.station_id]));
  });

  test('register dispatch, daily stats and finalisation of a batch: one statement each (two for the finalisation), counted once', async () => {
    const day = new Date('2026-11-20T12:00:00Z');
    const ids = await Promise.all(Array.from({ length: 12 }, () => transaction({ completedAt: day })));
    const unknown = crypto.randomUUID();
    await runPostCaptureMany(tdb, m.merchant.tenant_database, ids.slice(0, 10).map((id) => ({ transaction_id: id, stock_changed: false })), [writeKitchenItems]);

    // Two of them have no kitchen documents yet: they alone are refused.
    let r: (Error | null)[] = [];
    expect(await statements(async () => void (r = await dispatchOrdersToRegister(tdb, [...ids, unknown])))).toBe(1);
    expect(outcomes(r)).toEqual([...ids.slice(0, 10).map(() => null), `order ${ids[10]}: kitchen item documents not written yet`, `order ${ids[11]}: kitchen item documents not written yet`, null]);
    expect((await listSteps(tdb, ids[0]!)).find((s) => s.step === 'register_dispatch')).toEqual({ step: 'register_dispatch', outcome: 'not_configured', detail: 'No register is configured for this location.' });
    expect((await listSteps(tdb, ids[10]!)).find((s) => s.step === 'register_dispatch')).toBeUndefined();

    const before = await tdb.selectFrom('daily_stats').selectAll().where('location_id', '=', m.locations[0]!.id).where('date', '=', '2026-11-20').executeTakeFirst();
    expect(await statements(async () => void (r = await addManyToDailyStats(tdb, [...ids, unknown, ids[0]!])))).toBe(1);
    expect(outcomes(r)).toEqual([...ids.map(() => null), 'not_found', null]);
    // Two overlapping batches at once: each transaction still counts once.
    await Promise.all([addManyToDailyStats(tdb, ids), addManyToDailyStats(tdb, [...ids].reverse())]);
    const after = await tdb.selectFrom('daily_stats').selectAll().where('location_id', '=', m.locations[0]!.id).where('date', '=', '2026-11-20').executeTakeFirstOrThrow();
    expect(after.transactions - (before?.transactions ?? 0)).toBe(12);
    expect(Number(after.total) - Number(before?.total ?? 0)).toBe(12 * 250);
    expect((await listSteps(tdb, ids[3]!)).filter((s) => s.step === 'daily_stats')).toEqual([{ step: 'daily_stats', outcome: 'ok', detail: '2026-11-20' }]);

    expect(await statements(async () => void (r = await finalisePayments(tdb, [...ids, unknown])))).toBe(2);
    expect(outcomes(r)).toEqual([...ids.map(() => null), null]);
    expect(await listSteps(tdb, unknown)).toEqual([]);
    const fin = (await listSteps(tdb, ids[7]!)).find((s) => s.step === 'finalise')!;
    expect(JSON.parse(fin.detail!)).toEqual({ loyalty_earn: 'skipped: no customer', offer_redemption: 'skipped: no offer', customer_timeline: 'skipped: no customer', kiosk_customer_name: 'skipped: no customer', b2b_invoice: 'skipped: no B2B customer' });
    await finalisePayments(tdb, ids);
    expect((await listSteps(tdb, ids[7]!)).filter((s) => s.step === 'finalise')).toHaveLength(1);
  });
});
