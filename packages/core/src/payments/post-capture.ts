import { enqueueOutbox, type TenantDb, type TenantTx } from '@pos/db';
import {
  jobMessage,
  orderDispatchJob,
  paymentFinaliseJob,
  statsDailyJob,
  stockEdgeSyncJob,
  stockReleaseReservationJob,
} from '@pos/kernel/queues/index';
import { loadLines, loadTransaction, type TransactionLineRow, type TransactionRow } from './transaction-records.ts';
import { createKitchenTickets } from '../kitchen/tickets.ts';

/** Appends a step of a transaction's post-capture sequence; a step is recorded once (a re-run is a no-op). Returns false when it was there already. */
export async function recordStep(db: TenantDb | TenantTx, transactionId: string, step: string, outcome: string, detail: string | null = null): Promise<boolean> {
  const r = await db
    .insertInto('transaction_steps')
    .values({ transaction_id: transactionId, step, outcome, detail })
    .onConflict((oc) => oc.columns(['transaction_id', 'step']).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** The steps of a transaction in the order they happened. */
export async function listSteps(db: TenantDb, transactionId: string): Promise<{ step: string; outcome: string; detail: string | null }[]> {
  return db.selectFrom('transaction_steps').select(['step', 'outcome', 'detail']).where('transaction_id', '=', transactionId).orderBy('seq').execute();
}

/** `PaymentCaptured` and its listeners, run synchronously in registration order. */
export type PaymentCapturedListener = (db: TenantDb, t: TransactionRow, lines: readonly TransactionLineRow[]) => Promise<void>;

/** The kitchen item documents the register dispatch reads (one per line; a re-run writes nothing new). */
export const writeKitchenItems: PaymentCapturedListener = async (db, t, lines) => {
  if (lines.length === 0) return;
  await db
    .insertInto('kitchen_items')
    .values(
      lines.map((l) => ({
        transaction_id: t.id,
        position: l.position,
        location_id: t.location_id,
        order_no: t.order_no,
        item_id: l.item_id,
        name: l.name,
        qty: l.qty,
        unit_price: l.unit_price,
        total: l.total,
        modifiers: JSON.stringify(l.modifiers),
      })),
    )
    .onConflict((oc) => oc.columns(['transaction_id', 'position']).doNothing())
    .execute();
};

/** The kitchen tickets of a captured order, one per station its lines are routed to (issue 14). */
export const writeKitchenTickets: PaymentCapturedListener = async (db, t, lines) => {
  // Tickets and their lines in one commit: a crash between them never leaves a ticket without lines.
  await db.transaction().execute((tx) => createKitchenTickets(tx, { source: 'transaction', sourceId: t.id, locationId: t.location_id, orderNo: String(t.order_no), at: new Date(), lines }));
};

/**
 * The post-capture sequence (spec 3), run by the worker after the capture committed:
 * 1. re-read the transaction by internal id;
 * 2. emit `PaymentCaptured` synchronously (its listener writes the kitchen item documents);
 * 3-7. in one commit, after step 2 finished: queue the register dispatch, the cart's stock
 *    reservation release (only with a cart session), the daily stats (not in test mode), the deferred
 *    finalisation job last, and finally the edge stock sync when stock changed.
 * Each step is recorded once in `transaction_steps`, so a re-run (a retried job) repeats nothing.
 */
export async function runPostCapture(
  db: TenantDb,
  tenantDatabase: string,
  transactionId: string,
  stockChanged: boolean,
  listeners: readonly PaymentCapturedListener[] = [writeKitchenItems, writeKitchenTickets],
): Promise<void> {
  const t = await loadTransaction(db, transactionId);
  if (t.status !== 'Complete') throw new Error(`post-capture of transaction ${t.id} in status ${t.status}`);
  await recordStep(db, t.id, 'reread', 'ok');
  const lines = await loadLines(db, t.id);
  for (const listener of listeners) await listener(db, t, lines);
  await recordStep(db, t.id, 'payment_captured', 'ok', `${lines.length} kitchen items`);

  await db.transaction().execute(async (tx) => {
    // The claim decides whether this run queues the jobs: one post-capture sequence per transaction.
    if (!(await recordStep(tx, t.id, 'queue_jobs', 'ok'))) return;
    const base = { tenant_database: tenantDatabase, transaction_id: t.id };
    await enqueueOutbox(tx, jobMessage(orderDispatchJob, base));
    await recordStep(tx, t.id, 'queued:order.dispatch', 'ok');
    if (t.cart_session_id) {
      await enqueueOutbox(tx, jobMessage(stockReleaseReservationJob, { ...base, cart_session_id: t.cart_session_id }));
      await recordStep(tx, t.id, 'queued:stock.release-reservation', 'ok');
    }
    if (!t.is_test) {
      await enqueueOutbox(tx, jobMessage(statsDailyJob, base));
      await recordStep(tx, t.id, 'queued:stats.daily', 'ok');
    } else {
      await recordStep(tx, t.id, 'queued:stats.daily', 'skipped', 'test mode');
    }
    await enqueueOutbox(tx, jobMessage(paymentFinaliseJob, base));
    await recordStep(tx, t.id, 'queued:payment.finalise', 'ok');
    if (stockChanged) {
      await enqueueOutbox(tx, jobMessage(stockEdgeSyncJob, { ...base, location_id: t.location_id, item_ids: [...new Set(lines.map((l) => l.item_id))].slice(0, 100) }));
      await recordStep(tx, t.id, 'queued:stock.edge-sync', 'ok');
    }
  });
}

/**
 * `processOrderJob`: dispatch to the location's register. It refuses to run before the kitchen item
 * documents exist (the register would receive an order without priced lines). No register
 * integration exists yet, so it records that none is configured.
 */
export async function dispatchOrderToRegister(db: TenantDb, transactionId: string): Promise<void> {
  const t = await loadTransaction(db, transactionId);
  const kitchen = await db.selectFrom('kitchen_items').select((eb) => eb.fn.countAll<string>().as('n')).where('transaction_id', '=', t.id).executeTakeFirstOrThrow();
  const lines = await db.selectFrom('transaction_lines').select((eb) => eb.fn.countAll<string>().as('n')).where('transaction_id', '=', t.id).executeTakeFirstOrThrow();
  if (Number(kitchen.n) < Number(lines.n)) throw new Error(`order ${t.id}: kitchen item documents not written yet`);
  await db.updateTable('transactions').set({ pos_sync_status: 'not_configured', pos_sync_detail: 'No register is configured for this location.' }).where('id', '=', t.id).execute();
  await recordStep(db, t.id, 'register_dispatch', 'not_configured', `${kitchen.n} kitchen items`);
}

/** Daily stats of the transaction's location and local date, counted once per transaction. */
export async function addToDailyStats(db: TenantDb, transactionId: string): Promise<void> {
  await db.transaction().execute(async (tx) => {
    const t = await loadTransaction(tx, transactionId);
    const claimed = await tx.insertInto('daily_stats_counted').values({ transaction_id: t.id }).onConflict((oc) => oc.column('transaction_id').doNothing()).executeTakeFirst();
    if (Number(claimed.numInsertedOrUpdatedRows ?? 0n) === 0) return;
    const loc = await tx.selectFrom('locations').select('timezone').where('id', '=', t.location_id).executeTakeFirstOrThrow();
    const date = new Intl.DateTimeFormat('en-CA', { timeZone: loc.timezone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(t.completed_at ?? t.created_at);
    await tx
      .insertInto('daily_stats')
      .values({ location_id: t.location_id, date, transactions: 1, total: t.total })
      .onConflict((oc) =>
        oc.columns(['location_id', 'date']).doUpdateSet((eb) => ({ transactions: eb('daily_stats.transactions', '+', 1), total: eb('daily_stats.total', '+', t.total) })),
      )
      .execute();
    await recordStep(tx, t.id, 'daily_stats', 'ok', date);
  });
}

/**
 * The deferred finalisation job (one attempt, medium-priority payments queue): loyalty earn, offer
 * and reward redemption, customer timeline, kiosk customer name, B2B auto-invoice, each in its own
 * error boundary. The platform has no customers, loyalty or invoicing model yet, so each step records
 * why it had nothing to do; a step that throws is recorded as failed and the others still run.
 */
export async function finalisePayment(db: TenantDb, transactionId: string, steps: readonly { name: string; run: (t: TransactionRow) => Promise<string> }[] = DEFAULT_FINALISE_STEPS): Promise<Record<string, string>> {
  const t = await loadTransaction(db, transactionId);
  const outcomes: Record<string, string> = {};
  for (const s of steps) {
    try {
      outcomes[s.name] = await s.run(t);
    } catch (e) {
      outcomes[s.name] = `failed: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
  await recordStep(db, t.id, 'finalise', 'ok', JSON.stringify(outcomes));
  return outcomes;
}

const noCustomer = async (t: TransactionRow) => (t.customer_id ? 'skipped: customer records are not built yet' : 'skipped: no customer');
export const DEFAULT_FINALISE_STEPS: readonly { name: string; run: (t: TransactionRow) => Promise<string> }[] = [
  { name: 'loyalty_earn', run: noCustomer },
  { name: 'offer_redemption', run: async (t) => (Array.isArray(t.offers) && t.offers.length > 0 ? `skipped: ${t.offers.length} offer(s) applied, redemption counting not built yet` : 'skipped: no offer') },
  { name: 'customer_timeline', run: noCustomer },
  { name: 'kiosk_customer_name', run: noCustomer },
  { name: 'b2b_invoice', run: async () => 'skipped: no B2B customer' },
];
