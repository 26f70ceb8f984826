import { tenantSession, type TenantDb, type TenantSession, type TenantTx } from '@pos/db';
import { errors } from '@pos/kernel';
import {
  jobMessage,
  type JobMessage,
  orderDispatchJob,
  paymentFinaliseJob,
  statsDailyJob,
  stockEdgeSyncJob,
  stockReleaseReservationJob,
} from '@pos/kernel/queues/index';
import { loadTransaction, type TransactionLineRow, type TransactionRow } from './transaction-records.ts';
import { dailyStatsStatement, dispatchStatement, queueJobsStatement, rereadStatement } from './post-capture-statements.ts';
import { createKitchenTickets } from '../kitchen/tickets.ts';
import type { KitchenPublisher } from '../kitchen/kitchen-events.ts';
import { customerFinaliseSteps } from '../customers/finalise-steps.ts';
import { queueOrderReceipt } from '../printers/print-dispatch.ts';
import { dispatchCaptured, type RegisterDispatchDeps } from '../integrations/dispatch-register.ts';

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

/**
 * The kitchen tickets of a captured order, one per station its lines are routed to (issue 14); their
 * `created` kitchen events go to `publish` after the commit (a re-run creates and publishes nothing).
 */
export const kitchenTicketsListener =
  (publish?: KitchenPublisher): PaymentCapturedListener =>
  async (db, t, lines) => {
    // Tickets and their lines in one commit: a crash between them never leaves a ticket without lines.
    const created = await db.transaction().execute((tx) => createKitchenTickets(tx, { source: 'transaction', sourceId: t.id, locationId: t.location_id, orderNo: String(t.order_no), at: new Date(), lines }));
    if (publish) await publish(created.map((c) => c.event));
  };
export const writeKitchenTickets: PaymentCapturedListener = kitchenTicketsListener();

/** The customer receipt of a captured kiosk or online order on the location's receipt printers (issue 15). */
export const printOrderReceipt: PaymentCapturedListener = async (db, t) => {
  await queueOrderReceipt(db, t.id, new Date());
};

/** The pool and schema behind a tenant-bound instance: the post-capture steps send prepared statements. */
function sessionOf(db: TenantDb): TenantSession {
  const session = tenantSession(db);
  if (!session) throw new Error('post-capture needs a tenant instance made by bindTenant');
  return session;
}

/** Step 1: the transaction re-read by internal id (never by key) with its lines; `reread` is recorded in the same statement. */
export async function rereadTransaction(db: TenantDb, transactionId: string): Promise<{ t: TransactionRow; lines: TransactionLineRow[] }> {
  const [row] = await rereadStatement.run(sessionOf(db), [transactionId]);
  if (!row) throw errors.notFound('transaction');
  const { pc_lines: lines, ...t } = row;
  if (t.status !== 'Complete') throw new Error(`post-capture of transaction ${t.id} in status ${t.status}`);
  return { t, lines };
}

/**
 * Steps 3-7 in one statement, after step 2 finished: record `payment_captured`, claim `queue_jobs`
 * and, only for the run that claimed it, write the outbox rows in the spec's order with their steps:
 * the register dispatch, the cart's stock reservation release (only with a cart session), the daily
 * stats (not in test mode), the deferred finalisation job last, and finally the edge stock sync when
 * stock changed. Returns whether this run queued them.
 */
export async function queuePostCaptureJobs(db: TenantDb, tenantDatabase: string, t: TransactionRow, lines: readonly TransactionLineRow[], stockChanged: boolean): Promise<boolean> {
  const base = { tenant_database: tenantDatabase, transaction_id: t.id };
  const jobs: JobMessage[] = [];
  const steps: { step: string; outcome: string; detail: string | null }[] = [];
  const queue = (msg: JobMessage) => {
    jobs.push(msg);
    steps.push({ step: `queued:${msg.job}`, outcome: 'ok', detail: null });
  };
  queue(jobMessage(orderDispatchJob, base));
  if (t.cart_session_id) queue(jobMessage(stockReleaseReservationJob, { ...base, cart_session_id: t.cart_session_id }));
  if (!t.is_test) queue(jobMessage(statsDailyJob, base));
  else steps.push({ step: 'queued:stats.daily', outcome: 'skipped', detail: 'test mode' });
  queue(jobMessage(paymentFinaliseJob, base));
  if (stockChanged) queue(jobMessage(stockEdgeSyncJob, { ...base, location_id: t.location_id, item_ids: [...new Set(lines.map((l) => l.item_id))].slice(0, 100) }));
  const [r] = await queueJobsStatement.run(sessionOf(db), [
    t.id,
    `${lines.length} kitchen items`,
    jobs.map((j) => j.queue),
    jobs.map((j) => j.job),
    jobs.map((j) => JSON.stringify(j.payload)),
    steps.map((s) => s.step),
    steps.map((s) => s.outcome),
    steps.map((s) => s.detail),
  ]);
  return (r?.claimed ?? 0) > 0;
}

/**
 * The post-capture sequence (spec 3), run by the worker after the capture committed:
 * 1. re-read the transaction by internal id;
 * 2. emit `PaymentCaptured` synchronously (its listeners write the kitchen item documents and tickets);
 * 3-7. in one statement, after step 2 finished: queue the register dispatch, the cart's stock
 *    reservation release (only with a cart session), the daily stats (not in test mode), the deferred
 *    finalisation job last, and finally the edge stock sync when stock changed.
 * Each step is recorded once in `transaction_steps`, so a re-run (a retried job) repeats nothing.
 */
export async function runPostCapture(
  db: TenantDb,
  tenantDatabase: string,
  transactionId: string,
  stockChanged: boolean,
  listeners: readonly PaymentCapturedListener[] = [writeKitchenItems, writeKitchenTickets, printOrderReceipt],
): Promise<void> {
  const { t, lines } = await rereadTransaction(db, transactionId);
  for (const listener of listeners) await listener(db, t, lines);
  await queuePostCaptureJobs(db, tenantDatabase, t, lines, stockChanged);
}

/**
 * `processOrderJob`: dispatch to the location's register. It refuses to run before the kitchen item
 * documents exist (the register would receive an order without priced lines). With the register
 * clients configured it pushes the order to the location's register (issue 17); without them it
 * records that none is configured (one statement).
 */
export async function dispatchOrderToRegister(db: TenantDb, transactionId: string, registers?: { deps: RegisterDispatchDeps; tenantDatabase: string }): Promise<void> {
  if (registers) {
    // Register integrations configured (issue 17): check, then call out, then record the outcome.
    const t = await loadTransaction(db, transactionId);
    const kitchen = await db.selectFrom('kitchen_items').select((eb) => eb.fn.countAll<string>().as('n')).where('transaction_id', '=', t.id).executeTakeFirstOrThrow();
    const lines = await db.selectFrom('transaction_lines').select((eb) => eb.fn.countAll<string>().as('n')).where('transaction_id', '=', t.id).executeTakeFirstOrThrow();
    if (Number(kitchen.n) < Number(lines.n)) throw new Error(`order ${t.id}: kitchen item documents not written yet`);
    return dispatchCaptured(registers.deps, db, registers.tenantDatabase, t);
  }
  // No register client configured on this platform: one statement checks and records `not_configured`.
  const [r] = await dispatchStatement.run(sessionOf(db), [transactionId]);
  if (!r?.found) throw errors.notFound('transaction');
  if (r.kitchen < r.lines) throw new Error(`order ${transactionId}: kitchen item documents not written yet`);
}

/** Daily stats of the transaction's location and local date, counted once per transaction (one statement). */
export async function addToDailyStats(db: TenantDb, transactionId: string): Promise<void> {
  const [r] = await dailyStatsStatement.run(sessionOf(db), [transactionId]);
  if (!r?.found) throw errors.notFound('transaction');
}

/**
 * The deferred finalisation job (one attempt, medium-priority payments queue): loyalty earn, offer
 * and reward redemption, customer timeline, kiosk customer name, B2B auto-invoice, each in its own
 * error boundary (each records what it did or why it had nothing to do; a step that throws is recorded
 * as failed and the others still run). There is no invoicing model yet, so the B2B step records that.
 */
export async function finalisePayment(db: TenantDb, transactionId: string, steps: readonly { name: string; run: (t: TransactionRow) => Promise<string> }[] = defaultFinaliseSteps(db)): Promise<Record<string, string>> {
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

/** The default steps: the customer steps (loyalty earn, offer redemption, timeline, kiosk customer name), then the B2B invoice. */
export const defaultFinaliseSteps = (db: TenantDb): readonly { name: string; run: (t: TransactionRow) => Promise<string> }[] => [
  ...customerFinaliseSteps(db),
  { name: 'b2b_invoice', run: async () => 'skipped: no B2B customer' },
];
