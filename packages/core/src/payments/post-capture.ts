import { enqueueOutboxUnlessPending, type TenantDb, type TenantTx } from '@pos/db';
import { AppError, errors, type Logger } from '@pos/kernel';
import { nameWithVariant } from '@pos/domain/catalog/variants';
import {
  FAN_OUT_JOB,
  FAN_OUT_QUEUE,
  type FanOutPayload,
  jobMessage,
  MAX_FAN_OUT_MESSAGES,
  type JobMessage,
  orderDispatchJob,
  paymentFinaliseJob,
  statsDailyJob,
  stockEdgeSyncJob,
  stockReleaseReservationJob,
} from '@pos/kernel/queues/index';
import { loadTransaction } from './transaction-records.ts';
import type { CapturedLine, CapturedOrder, CapturedTransaction } from './captured-order.ts';
import { dailyStatsStatement, dispatchStatement, registerCandidatesStatement, finaliseReadStatement, kitchenItemsStatement, queueJobsStatement, recordStepsStatement, rereadStatement } from './post-capture-statements.ts';
import { createKitchenTicketsMany } from '../kitchen/tickets.ts';
import { tableLabels } from '../table-qr/table-labels.ts';

/** The `order_status` of an order cancelled after it was paid (a marketplace's cancellation). */
const CANCELLED_ORDER = 'Cancelled';
import type { KitchenPublisher } from '../kitchen/kitchen-events.ts';
import type { KitchenOrderEvent } from './payment-events.ts';
import { customerFinaliseSteps, type FinaliseStep, type FinaliseTransaction } from '../customers/finalise-steps.ts';
import { queueOrderReceipts } from '../printers/print-dispatch.ts';
import { dispatchCaptured, findRegister, NO_REGISTER, REGISTER_PROVIDERS, type OrderChannel, type RegisterDispatchDeps } from '../integrations/dispatch-register.ts';

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

export type { CapturedOrder } from './captured-order.ts';

/** `PaymentCaptured` and its listeners, run synchronously in registration order, each for a whole batch of captured orders. */
export type PaymentCapturedListener = (db: TenantDb, orders: readonly CapturedOrder[]) => Promise<void>;

/** What a batch step answers per row, in order: null when the row's work is done, else why not. */
export type StepOutcome = Error | null;

/** The kitchen item documents the register dispatch reads (one per line; a re-run writes nothing new). One statement per batch. */
export const writeKitchenItems: PaymentCapturedListener = async (db, orders) => {
  const rows = orders.flatMap(({ t, lines }) =>
    lines.map((l) => ({ transaction_id: t.id, position: l.position, location_id: t.location_id, order_no: t.order_no, item_id: l.item_id, name: nameWithVariant(l.name, l.variant), qty: l.qty, unit_price: l.unit_price, total: l.total, modifiers: l.modifiers })),
  );
  if (rows.length === 0) return;
  await kitchenItemsStatement.execute(db, [JSON.stringify(rows)]);
};

/**
 * The `kitchen.order` push of captured orders: each line named as the kitchen item documents above name
 * it, with its variants ("Latte (Large)"), as its kitchen ticket shows it.
 */
export const kitchenOrderEvents = (orders: readonly CapturedOrder[]): KitchenOrderEvent[] =>
  orders.map(({ t, lines }) => ({ location_id: t.location_id, transaction_id: t.id, order_no: t.order_no, items: lines.map((l) => ({ name: nameWithVariant(l.name, l.variant), qty: l.qty })) }));

/**
 * The kitchen tickets of captured orders, one per station an order's lines are routed to (issue 14);
 * their `created` kitchen events go to `publish` after the commit (a re-run creates and publishes nothing).
 */
export const kitchenTicketsListener =
  (publish?: KitchenPublisher): PaymentCapturedListener =>
  async (db, orders) => {
    // Tickets, lines and events commit together (one statement, or one transaction with print jobs).
    const at = new Date();
    // A table QR order names its table ("Terrace 7 · 12"), as a register ticket does: read only when the batch holds one.
    const tabled = orders.filter((o) => o.t.table_session_id !== null).map((o) => o.t.id);
    const tables = tabled.length > 0 ? await tableLabels(db, tabled) : new Map<string, string>();
    const orderNoOf = (t: CapturedTransaction) => (tables.has(t.id) ? `${tables.get(t.id)} · ${t.order_no}` : String(t.order_no));
    const created = await createKitchenTicketsMany(
      db,
      // The cook sees the variants chosen with the item ("Latte (Large)").
      orders.map(({ t, lines }) => ({ source: 'transaction' as const, sourceId: t.id, locationId: t.location_id, orderNo: orderNoOf(t), at, dueAt: t.scheduled_for, lines: lines.map((l) => ({ ...l, name: nameWithVariant(l.name, l.variant) })) })),
      // A test-mode transaction deleted since the re-read gets no ticket (nothing would ever remove it).
      { liveTransactionsOnly: true },
    );
    if (publish && created.length > 0) await publish(created.map((c) => c.event));
  };
export const writeKitchenTickets: PaymentCapturedListener = kitchenTicketsListener();

/** The customer receipts of captured kiosk or online orders on their locations' receipt printers (issue 15). */
export const printOrderReceipt: PaymentCapturedListener = async (db, orders) => {
  await queueOrderReceipts(
    db,
    orders.map((o) => o.t.id),
    new Date(),
  );
};

/**
 * The rows of a step whose transaction is gone: only a test-mode transaction is ever deleted
 * (`DELETE /transactions/{id}`), and its jobs may still be queued. Their work ends here as done (no
 * retry could find it), logged once; nothing is recorded, since the trace would outlive the transaction.
 */
function skipDeleted(log: Logger | undefined, step: string, ids: readonly string[]): void {
  if (ids.length > 0) log?.info('transaction deleted; step skipped', { step, transaction_ids: [...new Set(ids)] });
}

/** Throws a single row's outcome (the one-transaction forms of the batch steps). */
function one<T>(outcomes: readonly StepOutcome[], value?: T): T {
  if (outcomes[0]) throw outcomes[0];
  return value as T;
}

/**
 * Step 1 for a batch: the transactions re-read by internal id (never by key) with their lines, in one
 * statement that also records `reread`. Per id: the captured order, why it cannot go on (not
 * Complete), or null when there is no such transaction (deleted since its capture queued the job).
 */
export async function rereadTransactions(db: TenantDb, ids: readonly string[]): Promise<Map<string, CapturedOrder | Error | null>> {
  const rows = await rereadStatement.execute(db, [[...new Set(ids)]]);
  const found = new Map<string, CapturedOrder | Error | null>();
  for (const { pc_lines: lines, ...t } of rows) {
    found.set(t.id, t.status === 'Complete' ? { t, lines } : new Error(`post-capture of transaction ${t.id} in status ${t.status}`));
  }
  for (const id of ids) if (!found.has(id)) found.set(id, null);
  return found;
}

/** Step 1: the transaction re-read by internal id (never by key) with its lines; `reread` is recorded in the same statement. */
export async function rereadTransaction(db: TenantDb, transactionId: string): Promise<{ t: CapturedTransaction; lines: CapturedLine[] }> {
  const r = (await rereadTransactions(db, [transactionId])).get(transactionId)!;
  if (r === null) throw errors.notFound('transaction');
  if (r instanceof Error) throw r;
  return { t: r.t, lines: [...r.lines] };
}

/**
 * What `queue_jobs` records: the jobs queued, in the order they were written, and those a condition
 * skipped with why (the register dispatch, the stock release only with a cart session, the daily stats
 * not in test mode, the finalisation last, then the edge stock sync when stock changed).
 */
export interface QueuedJobs {
  readonly queued: readonly string[];
  readonly skipped?: Readonly<Record<string, string>>;
}

/** The step each follow-up job records when it ran (the post-capture sweep looks for the missing ones). */
export const FOLLOW_UP_STEPS: Readonly<Record<string, string>> = {
  [orderDispatchJob.name]: 'register_dispatch',
  [stockReleaseReservationJob.name]: 'stock_release',
  [statsDailyJob.name]: 'daily_stats',
  [paymentFinaliseJob.name]: 'finalise',
  [stockEdgeSyncJob.name]: 'edge_stock_sync',
};

/**
 * A captured transaction's follow-up jobs in the spec's order: the register dispatch, the cart's stock
 * reservation release (only with a cart session), the daily stats (not in test mode), the deferred
 * finalisation, and the edge stock sync when stock changed; with what `queue_jobs` records of them.
 */
export function followUpJobs(
  tenantDatabase: string,
  t: Pick<CapturedTransaction, 'id' | 'location_id' | 'cart_session_id' | 'is_test'>,
  lines: readonly Pick<CapturedLine, 'item_id'>[],
  stockChanged: boolean,
): { messages: JobMessage[]; jobs: QueuedJobs } {
  const base = { tenant_database: tenantDatabase, transaction_id: t.id };
  const messages: JobMessage[] = [jobMessage(orderDispatchJob, base)];
  if (t.cart_session_id) messages.push(jobMessage(stockReleaseReservationJob, { ...base, cart_session_id: t.cart_session_id }));
  if (!t.is_test) messages.push(jobMessage(statsDailyJob, base));
  messages.push(jobMessage(paymentFinaliseJob, base));
  if (stockChanged) messages.push(jobMessage(stockEdgeSyncJob, { ...base, location_id: t.location_id, item_ids: [...new Set(lines.map((l) => l.item_id))].slice(0, 100) }));
  const queued = messages.map((m) => m.job);
  return { messages, jobs: t.is_test ? { queued, skipped: { [statsDailyJob.name]: 'test mode' } } : { queued } };
}

/**
 * Steps 3-7 in one statement for a batch, after step 2 finished: record `payment_captured`, claim
 * `queue_jobs` (its detail lists the jobs in order, `QueuedJobs`) and, only for the transactions this
 * run claimed, write their jobs in one fan-out outbox row for the batch (each transaction's jobs in turn, in claim order), in the spec's order: the register dispatch, the cart's stock
 * reservation release (only with a cart session), the daily stats (not in test mode), the deferred
 * finalisation job last, and finally the edge stock sync when stock changed. Returns the ids this run
 * queued (`won`) and those still there (`live`; a transaction deleted since its re-read gets nothing).
 */
export async function queuePostCaptureJobs(
  db: TenantDb,
  tenantDatabase: string,
  orders: readonly (CapturedOrder & { stockChanged: boolean })[],
): Promise<{ won: Set<string>; live: Set<string> }> {
  const won = new Set<string>();
  const live = new Set<string>();
  // A fan-out row holds at most MAX_FAN_OUT_MESSAGES: a transaction queues at most five jobs.
  for (let i = 0; i < orders.length; i += FAN_OUT_TRANSACTIONS) {
    const claims: { id: string; captured: string; queued: string }[] = [];
    const follow: FanOutPayload['messages'] = [];
    const owners: string[] = [];
    for (const { t, lines, stockChanged } of orders.slice(i, i + FAN_OUT_TRANSACTIONS)) {
      const { messages, jobs } = followUpJobs(tenantDatabase, t, lines, stockChanged);
      claims.push({ id: t.id, captured: `${lines.length} kitchen items`, queued: JSON.stringify(jobs) });
      for (const m of messages) {
        follow.push({ job: m.job, payload: m.payload });
        owners.push(t.id);
      }
    }
    const payload: FanOutPayload = { messages: follow };
    const [r] = await queueJobsStatement.execute(db, [JSON.stringify(claims), JSON.stringify(payload), FAN_OUT_QUEUE, FAN_OUT_JOB, owners]);
    for (const id of r?.won ?? []) won.add(id);
    for (const id of r?.live ?? []) live.add(id);
  }
  return { won, live };
}

/** The edge stock syncs of the orders whose capture changed stock, each written unless one is still pending (a retried job writes none twice). */
async function queueEdgeSyncs(db: TenantDb, tenantDatabase: string, orders: readonly (CapturedOrder & { stockChanged: boolean })[]): Promise<void> {
  for (const o of orders) {
    if (!o.stockChanged) continue;
    const sync = followUpJobs(tenantDatabase, o.t, o.lines, true).messages.find((m) => m.job === stockEdgeSyncJob.name)!;
    await enqueueOutboxUnlessPending(db, { queue: sync.queue, job: sync.job, payload: sync.payload as Record<string, unknown> }, []);
  }
}

/** Transactions whose follow-up jobs share one fan-out row (five jobs each at most). */
const FAN_OUT_TRANSACTIONS = Math.floor(MAX_FAN_OUT_MESSAGES / 5);

/**
 * The post-capture sequence (spec 3) for a batch of captured transactions, run by the worker after
 * their captures committed, each step once for the whole batch:
 * 1. re-read the transactions by internal id;
 * 2. emit `PaymentCaptured` synchronously (its listeners write the kitchen item documents and tickets);
 * 3-7. in one statement, after step 2 finished: queue the register dispatch, the cart's stock
 *    reservation release (only with a cart session), the daily stats (not in test mode), the deferred
 *    finalisation job last, and finally the edge stock sync when stock changed.
 * Each step is recorded once per transaction in `transaction_steps`, so a re-run (a retried job)
 * repeats nothing. `announce` (the `kitchen.order` real-time push) gets the orders this run claimed
 * `queue_jobs` for, after that claim: once per transaction, however often the sequence runs (a push
 * lost to a crash right after the claim is not repeated: clients catch up by reading). Answers one outcome per item: a not Complete transaction fails alone. A
 * transaction that is gone (a deleted test-mode one, before the re-read or during the sequence: the
 * kitchen writes and the claim skip it) is done, logged once as skipped (`skipDeleted`).
 */
export async function runPostCaptureMany(
  db: TenantDb,
  tenantDatabase: string,
  items: readonly { transaction_id: string; stock_changed: boolean }[],
  listeners: readonly PaymentCapturedListener[] = [writeKitchenItems, writeKitchenTickets, printOrderReceipt],
  log?: Logger,
  announce?: (orders: readonly CapturedOrder[]) => Promise<void>,
): Promise<StepOutcome[]> {
  const read = await rereadTransactions(
    db,
    items.map((i) => i.transaction_id),
  );
  const orders = new Map<string, CapturedOrder & { stockChanged: boolean }>();
  for (const i of items) {
    const r = read.get(i.transaction_id)!;
    if (r === null || r instanceof Error) continue;
    const seen = orders.get(i.transaction_id);
    orders.set(i.transaction_id, { ...r, stockChanged: (seen?.stockChanged ?? false) || i.stock_changed });
  }
  // In id order: two batches sharing transactions (a batch relayed again, cut differently) claim their rows in the same order.
  const captured = [...orders.values()].sort((a, b) => (a.t.id < b.t.id ? -1 : a.t.id > b.t.id ? 1 : 0));
  const gone = items.filter((i) => read.get(i.transaction_id) === null).map((i) => i.transaction_id);
  if (captured.length > 0) {
    // An order cancelled since its capture (a marketplace cancelling before this job ran) is no sale:
    // nothing for the kitchen. Its follow-up jobs are still queued (the dispatch skips it, the stats
    // took it out already).
    const cooking = captured.filter((o) => o.t.order_status !== CANCELLED_ORDER);
    try {
      if (cooking.length > 0) for (const listener of listeners) await listener(db, cooking);
    } catch (e) {
      // Step 7 is a final block (spec 3): the capture moved the stock, so the edge stock sync is queued
      // even when an earlier step failed (the job is retried, and its own claim makes a copy a no-op).
      await queueEdgeSyncs(db, tenantDatabase, captured).catch((err: unknown) => log?.warn('edge stock sync not queued after a failed post-capture step', { err }));
      throw e;
    }
    const { won, live } = await queuePostCaptureJobs(db, tenantDatabase, captured);
    gone.push(...captured.filter((o) => !live.has(o.t.id)).map((o) => o.t.id));
    // Announced once: only the orders whose `queue_jobs` this run claimed (a re-run claims none), and
    // only those going to the kitchen (a cancelled order is no `kitchen.order` for its screens).
    const first = cooking.filter((o) => won.has(o.t.id));
    if (announce && first.length > 0) await announce(first);
  }
  skipDeleted(log, 'post_capture', gone);
  return items.map((i) => {
    const r = read.get(i.transaction_id)!;
    return r instanceof Error ? r : null;
  });
}

/** The post-capture sequence of one transaction (`runPostCaptureMany` with one). */
export async function runPostCapture(
  db: TenantDb,
  tenantDatabase: string,
  transactionId: string,
  stockChanged: boolean,
  listeners?: readonly PaymentCapturedListener[],
  log?: Logger,
): Promise<void> {
  one(await runPostCaptureMany(db, tenantDatabase, [{ transaction_id: transactionId, stock_changed: stockChanged }], listeners, log));
}

/** How many register dispatches of one batch run at once (each calls the location's register over HTTP). */
const DISPATCH_PARALLEL = 8;

/**
 * `processOrderJob` for a batch: dispatch to the location's register. It refuses to run before the
 * kitchen item documents exist (the register would receive an order without priced lines). The orders
 * of locations where a configured register client finds a register (or fails looking) are pushed one by
 * one (issue 17), several at a time; those of locations without one, and all of them when no client is
 * configured, are checked and recorded as having no register by one statement for the batch. A
 * transaction that is gone (a deleted test-mode one) is skipped (`skipDeleted`).
 */
export async function dispatchOrdersToRegister(db: TenantDb, ids: readonly string[], registers?: { deps: RegisterDispatchDeps; tenantDatabase: string }, log?: Logger): Promise<StepOutcome[]> {
  const bound = registers ? await registerBound(db, ids, registers) : new Set<string>();
  const outcomes: StepOutcome[] = new Array(ids.length).fill(null);
  const gone: string[] = [];
  const unbound = ids.filter((id) => !bound.has(id));
  if (unbound.length > 0) {
    const rows = await dispatchStatement.execute(db, [[...new Set(unbound)], NO_REGISTER]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    ids.forEach((id, i) => {
      if (bound.has(id)) return;
      const r = byId.get(id);
      if (!r) gone.push(id);
      else if (r.kitchen < r.lines && !r.cancelled) outcomes[i] = new Error(`order ${id}: kitchen item documents not written yet`);
    });
  }
  if (registers && bound.size > 0) {
    const todo = ids.flatMap((id, i) => (bound.has(id) ? [i] : []));
    await inLanes(todo.length, DISPATCH_PARALLEL, async (k) => {
      const i = todo[k]!;
      try {
        if ((await dispatchConfigured(db, ids[i]!, registers)) === 'gone') gone.push(ids[i]!);
      } catch (e) {
        outcomes[i] = e instanceof Error ? e : new Error(String(e));
      }
    });
  }
  skipDeleted(log, 'register_dispatch', gone);
  return outcomes;
}

/**
 * The transactions of a batch whose location and channel a configured register client finds a register
 * for, or fails looking (those go through `dispatchToRegister`, which says why): asked once per location
 * and channel of the batch, not once per order, and not at all when the merchant has no active register
 * connection (`registerCandidatesStatement`). The others have no register to send to.
 */
async function registerBound(db: TenantDb, ids: readonly string[], registers: { deps: RegisterDispatchDeps; tenantDatabase: string }): Promise<Set<string>> {
  const { deps, tenantDatabase } = registers;
  if (deps.dispatchers.length === 0 || ids.length === 0) return new Set();
  const rows = await registerCandidatesStatement.execute(db, [[...new Set(ids)], tenantDatabase, REGISTER_PROVIDERS]);
  if (rows.length === 0) return new Set();
  const keyOf = (r: { location_id: string; channel: OrderChannel }) => `${r.location_id}|${r.channel}`;
  const places = [...new Map(rows.map((r) => [keyOf(r), r])).values()];
  // A batch of many locations asks them several at a time, as the per-order path pushes.
  const found = new Map<string, boolean>();
  await inLanes(places.length, DISPATCH_PARALLEL, async (i) => {
    // A failed lookup counts as a register: the per-order path records why.
    found.set(keyOf(places[i]!), (await findRegister(deps, tenantDatabase, places[i]!.location_id, places[i]!.channel)) !== null);
  });
  return new Set(rows.filter((r) => found.get(keyOf(r))).map((r) => r.id));
}

/** Runs `work(0)` to `work(count - 1)`, at most `lanes` at a time. */
async function inLanes(count: number, lanes: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < count; i = next++) await work(i);
  };
  await Promise.all(Array.from({ length: Math.min(lanes, count) }, lane));
}

/** Register integrations configured (issue 17): check, then call out, then record the outcome; 'gone' when there is no such transaction. */
async function dispatchConfigured(db: TenantDb, transactionId: string, registers: { deps: RegisterDispatchDeps; tenantDatabase: string }): Promise<'gone' | void> {
  const t = await loadTransaction(db, transactionId).catch((e: unknown) => {
    if (e instanceof AppError && e.code === 'not_found') return null;
    throw e;
  });
  if (!t) return 'gone';
  // A cancelled order gets no kitchen documents; `dispatchToRegister` records it as not sent.
  if (t.order_status === CANCELLED_ORDER) return dispatchCaptured(registers.deps, db, registers.tenantDatabase, t);
  const kitchen = await db.selectFrom('kitchen_items').select((eb) => eb.fn.countAll<string>().as('n')).where('transaction_id', '=', t.id).executeTakeFirstOrThrow();
  const lines = await db.selectFrom('transaction_lines').select((eb) => eb.fn.countAll<string>().as('n')).where('transaction_id', '=', t.id).executeTakeFirstOrThrow();
  if (Number(kitchen.n) < Number(lines.n)) throw new Error(`order ${t.id}: kitchen item documents not written yet`);
  return dispatchCaptured(registers.deps, db, registers.tenantDatabase, t);
}

/** The register dispatch of one transaction (`dispatchOrdersToRegister` with one). */
export async function dispatchOrderToRegister(db: TenantDb, transactionId: string, registers?: { deps: RegisterDispatchDeps; tenantDatabase: string }): Promise<void> {
  one(await dispatchOrdersToRegister(db, [transactionId], registers));
}

/** Daily stats of each transaction's location and local date, counted once per transaction (one statement for the batch). */
export async function addManyToDailyStats(db: TenantDb, ids: readonly string[]): Promise<StepOutcome[]> {
  const found = new Set((await dailyStatsStatement.execute(db, [[...new Set(ids)]])).map((r) => r.id));
  return ids.map((id) => (found.has(id) ? null : errors.notFound('transaction')));
}

/** Daily stats of one transaction (`addManyToDailyStats` with one). */
export async function addToDailyStats(db: TenantDb, transactionId: string): Promise<void> {
  one(await addManyToDailyStats(db, [transactionId]));
}

/** Records one step for each of a batch of transactions (once each; a re-run is a no-op), in one statement. */
export async function recordSteps(db: TenantDb, rows: readonly { transaction_id: string; step: string; outcome: string; detail: string | null }[]): Promise<void> {
  if (rows.length === 0) return;
  const unique = [...new Map(rows.map((r) => [`${r.transaction_id}|${r.step}`, r])).values()].sort((a, b) => (a.transaction_id < b.transaction_id ? -1 : a.transaction_id > b.transaction_id ? 1 : 0));
  await recordStepsStatement.execute(db, [JSON.stringify(unique.map((r) => ({ id: r.transaction_id, step: r.step, outcome: r.outcome, detail: r.detail })))]);
}

type FinaliseSteps = readonly FinaliseStep[];

/** The finalisation steps of one transaction, each in its own error boundary. */
async function finaliseOutcomes(t: FinaliseTransaction, steps: FinaliseSteps): Promise<Record<string, string>> {
  const outcomes: Record<string, string> = {};
  for (const s of steps) {
    try {
      outcomes[s.name] = await s.run(t);
    } catch (e) {
      outcomes[s.name] = `failed: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
  return outcomes;
}

/**
 * The deferred finalisation job (one attempt, medium-priority payments queue) for a batch: loyalty
 * earn, offer and reward redemption, customer timeline, kiosk customer name, B2B auto-invoice, each in
 * its own error boundary (each records what it did or why it had nothing to do; a step that throws is
 * recorded as failed and the others still run). The transactions are read in one statement and their
 * `finalise` steps written in one; a step with nothing to do (no customer, no offer) costs no statement.
 * There is no invoicing model yet, so the B2B step records that. A transaction that is gone (a deleted
 * test-mode one) is skipped (`skipDeleted`).
 */
export async function finalisePayments(db: TenantDb, ids: readonly string[], steps: FinaliseSteps = defaultFinaliseSteps(db), log?: Logger): Promise<StepOutcome[]> {
  const unique = [...new Set(ids)];
  const rows = unique.length ? await finaliseReadStatement.execute(db, [unique]) : [];
  const done: { transaction_id: string; step: string; outcome: string; detail: string }[] = [];
  for (const t of rows) done.push({ transaction_id: t.id, step: 'finalise', outcome: 'ok', detail: JSON.stringify(await finaliseOutcomes(t, steps)) });
  await recordSteps(db, done);
  const found = new Set(rows.map((r) => r.id));
  skipDeleted(log, 'finalise', ids.filter((id) => !found.has(id)));
  return ids.map(() => null);
}

/** The finalisation of one transaction; answers what each step did. */
export async function finalisePayment(db: TenantDb, transactionId: string, steps: FinaliseSteps = defaultFinaliseSteps(db)): Promise<Record<string, string>> {
  const t = await loadTransaction(db, transactionId);
  const outcomes = await finaliseOutcomes(t, steps);
  await recordStep(db, t.id, 'finalise', 'ok', JSON.stringify(outcomes));
  return outcomes;
}

/**
 * The default steps: the customer steps (loyalty earn, offer redemption, timeline, kiosk customer name), then the B2B invoice.
 * `pointsPush` (register-b's, when the worker has a register-b client) runs right after loyalty earn, in its own boundary.
 */
export const defaultFinaliseSteps = (db: TenantDb, pointsPush?: FinaliseStep): FinaliseSteps => {
  const [earn, ...rest] = customerFinaliseSteps(db);
  return [earn!, ...(pointsPush ? [pointsPush] : []), ...rest, { name: 'b2b_invoice', run: async () => 'skipped: no B2B customer' }];
};
