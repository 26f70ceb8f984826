import type Redis from 'ioredis';
import { sql } from 'kysely';
import { bindTenant, type CentralDb, type TenantDb } from '@pos/db';
import type {
  orderDispatchJob,
  paymentCaptureJob,
  paymentFinaliseJob,
  paymentPostCaptureJob,
  statsDailyJob,
  stockEdgeSyncJob,
  stockReleaseReservationJob,
} from '@pos/kernel/queues/index';
import type { Logger } from '@pos/kernel';
import type { PaymentProviders } from '@pos/core/payments/payment-providers';
import { capturePayment } from '@pos/core/payments/capture-payment';
import { releaseCaptureDispatch } from '@pos/core/payments/capture-dispatch';
import {
  addManyToDailyStats,
  defaultFinaliseSteps,
  dispatchOrdersToRegister,
  finalisePayments,
  kitchenOrderEvents,
  kitchenTicketsListener,
  printOrderReceipt,
  recordSteps,
  runPostCaptureMany,
  writeKitchenItems,
  writeKitchenTickets,
  type CapturedOrder,
  type PaymentCapturedListener,
  type StepOutcome,
} from '@pos/core/payments/post-capture';
import { kitchenPublisher } from '@pos/core/kitchen/kitchen-events';
import { releaseReservations } from '@pos/core/catalog/stock-availability';
import { publishKitchenOrders } from '@pos/core/payments/payment-events';
import type { BatchJobHandler, JobContext, JobHandler } from './job-handler.ts';
import { dispatchGaveUp, type RegisterDispatchDeps } from '@pos/core/integrations/dispatch-register';
import { registerBPointsStep } from '@pos/core/integrations/register-b-loyalty';

export interface PaymentHandlerDeps {
  readonly redis?: Redis;
  readonly payments?: PaymentProviders;
  /** The location registers orders are dispatched to (issue 17); unset: recorded as not configured. */
  readonly registers?: RegisterDispatchDeps;
}

/**
 * True when the merchant schema is gone (the merchant was deleted, `dropMerchant`, with jobs still
 * queued): asked only after a job of it failed, so a schema merely missing a table (a migration not run
 * yet) still fails and is retried.
 */
async function tenantGone(db: CentralDb, tenantDatabase: string): Promise<boolean> {
  const r = await sql<{ gone: boolean }>`select to_regnamespace(${tenantDatabase}) is null as gone`.execute(db);
  return r.rows[0]?.gone === true;
}

/** Logs the rows of a merchant whose schema is gone: their work ends as done (nothing is left to do it on; every retry failed the same way). */
function skipGoneTenant(log: Logger, tenantDatabase: string, job: string, rows: number): void {
  log.warn('merchant schema no longer exists; job skipped', { tenant_database: tenantDatabase, job_name: job, rows });
}

/**
 * Runs `run` once per tenant schema named in a batch's payloads, with the payloads of that tenant,
 * and puts each answer back at its payload's place. A tenant whose schema is gone answers done for
 * its rows (`skipGoneTenant`).
 */
async function perTenant<P extends { tenant_database: string }>(
  ctx: Pick<JobContext, 'db' | 'log'>,
  job: string,
  payloads: readonly P[],
  run: (tdb: TenantDb, tenantDatabase: string, payloads: readonly P[]) => Promise<readonly StepOutcome[]>,
): Promise<StepOutcome[]> {
  const db = ctx.db;
  const groups = new Map<string, number[]>();
  payloads.forEach((p, i) => {
    const g = groups.get(p.tenant_database);
    if (g) g.push(i);
    else groups.set(p.tenant_database, [i]);
  });
  const out: StepOutcome[] = new Array(payloads.length).fill(null);
  for (const [tenant, idx] of groups) {
    let outcomes: readonly StepOutcome[];
    try {
      outcomes = await run(bindTenant(db, tenant), tenant, idx.map((i) => payloads[i]!));
    } catch (e) {
      if (!(await tenantGone(db, tenant))) throw e;
      skipGoneTenant(ctx.log, tenant, job, idx.length);
      continue;
    }
    if (outcomes.some((o) => o !== null) && (await tenantGone(db, tenant))) {
      skipGoneTenant(ctx.log, tenant, job, idx.length);
      continue;
    }
    idx.forEach((i, k) => (out[i] = outcomes[k] ?? null));
  }
  return out;
}

/** The batch's single-row form: the handler of one payload is its batch handler with one row. */
function single<D extends Parameters<typeof perTenant>[2][number]>(batch: (payloads: readonly D[], ctx: JobContext) => Promise<readonly StepOutcome[]>) {
  return async (payload: D, ctx: JobContext): Promise<void> => {
    const [outcome] = await batch([payload], ctx);
    if (outcome) throw outcome;
  };
}

/** The payment jobs' handlers (spec 3 "Capture rules" and "Post-capture sequence"). */
export function createPaymentHandlers(deps: PaymentHandlerDeps) {
  const batches = createPaymentBatchHandlers(deps);
  const capture: JobHandler<typeof paymentCaptureJob> = async (p, ctx) => {
    if (!deps.redis || !deps.payments) throw new Error('payment.capture needs the worker to be built with Redis and payment providers');
    try {
      await capturePayment(
        { tdb: bindTenant(ctx.db, p.tenant_database), tenantDatabase: p.tenant_database, redis: deps.redis, providers: deps.payments, log: ctx.log, now: () => ctx.clock.now() },
        p.transaction_id,
        { kind: 'poll' },
      );
    } catch (e) {
      if (!(await tenantGone(ctx.db, p.tenant_database))) throw e;
      skipGoneTenant(ctx.log, p.tenant_database, 'payment.capture', 1);
    } finally {
      // The details route dispatches one capture at a time: the next poll may dispatch again.
      await releaseCaptureDispatch(deps.redis, ctx.log, p.tenant_database, p.transaction_id);
    }
  };
  return {
    'payment.capture': capture,
    'payment.post-capture': single(batches['payment.post-capture']),
    'order.dispatch': single(batches['order.dispatch']),
    'stock.release-reservation': single(batches['stock.release-reservation']),
    'stats.daily': single(batches['stats.daily']),
    'payment.finalise': single(batches['payment.finalise']),
    'stock.edge-sync': single(batches['stock.edge-sync']),
  } as const;
}

/** `PaymentCaptured` listeners: the kitchen documents and the stations' tickets, then the receipt. */
function capturedListeners(redis: Redis | undefined, tenantDatabase: string, log: Logger): PaymentCapturedListener[] {
  return [writeKitchenItems, redis ? kitchenTicketsListener(kitchenPublisher(redis, tenantDatabase, log)) : writeKitchenTickets, printOrderReceipt];
}

/** The `kitchen.order` push on the real-time channel, of the orders a post-capture run claimed first (once per transaction). */
function kitchenOrderPush(redis: Redis | undefined, tenantDatabase: string, log: Logger): ((orders: readonly CapturedOrder[]) => Promise<void>) | undefined {
  if (!redis) return undefined;
  return (orders) => publishKitchenOrders(redis, tenantDatabase, kitchenOrderEvents(orders), log);
}

/** The post-capture jobs' batch handlers: each step once for all the rows of a batch (per tenant). */
export function createPaymentBatchHandlers(deps: PaymentHandlerDeps) {
  const postCapture: BatchJobHandler<typeof paymentPostCaptureJob> = (ps, ctx) =>
    perTenant(ctx, 'payment.post-capture', ps, (tdb, tenant, rows) => runPostCaptureMany(tdb, tenant, rows, capturedListeners(deps.redis, tenant, ctx.log), ctx.log, kitchenOrderPush(deps.redis, tenant, ctx.log)));
  const dispatch: BatchJobHandler<typeof orderDispatchJob> = (ps, ctx) =>
    perTenant(ctx, 'order.dispatch', ps, async (tdb, tenant, rows) => {
      const outcomes = await dispatchOrdersToRegister(
        tdb,
        rows.map((r) => r.transaction_id),
        deps.registers ? { deps: deps.registers, tenantDatabase: tenant } : undefined,
        ctx.log,
      );
      // No retries left: a sync left `retrying` would promise a retry that never comes.
      if (ctx.finalAttempt) await dispatchGaveUp(tdb, rows.filter((_r, i) => outcomes[i]).map((r) => r.transaction_id));
      return outcomes;
    });
  const stats: BatchJobHandler<typeof statsDailyJob> = (ps, ctx) => perTenant(ctx, 'stats.daily', ps, (tdb, _t, rows) => addManyToDailyStats(tdb, rows.map((r) => r.transaction_id)));
  // With a register-b client, the points a customer earned are pushed to register-b right after loyalty earn.
  const finaliseSteps = (tdb: TenantDb, tenant: string) => {
    const r = deps.registers;
    return defaultFinaliseSteps(tdb, r?.registerB ? registerBPointsStep(r.central, r.registerB, tenant, tdb) : undefined);
  };
  const finalise: BatchJobHandler<typeof paymentFinaliseJob> = (ps, ctx) =>
    perTenant(ctx, 'payment.finalise', ps, (tdb, tenant, rows) => finalisePayments(tdb, rows.map((r) => r.transaction_id), finaliseSteps(tdb, tenant), ctx.log));
  // The paid orders' stock holds go (the capture took their stock); a hold that expired before is gone already.
  const release: BatchJobHandler<typeof stockReleaseReservationJob> = (ps, ctx) =>
    perTenant(ctx, 'stock.release-reservation', ps, async (tdb, _t, rows) => {
      const released = await releaseReservations(tdb, rows.map((p) => p.transaction_id));
      await recordSteps(
        tdb,
        rows.map((p) => {
          const n = released.get(p.transaction_id) ?? 0;
          return { transaction_id: p.transaction_id, step: 'stock_release', outcome: n > 0 ? 'released' : 'nothing_reserved', detail: `cart ${p.cart_session_id}: ${n} item hold(s) released` };
        }),
      );
      return rows.map(() => null);
    });
  // Recorded steps only: no edge device takes stock.
  const edgeSync: BatchJobHandler<typeof stockEdgeSyncJob> = (ps, ctx) =>
    perTenant(ctx, 'stock.edge-sync', ps, async (tdb, _t, rows) => {
      await recordSteps(tdb, rows.map((p) => ({ transaction_id: p.transaction_id, step: 'edge_stock_sync', outcome: 'no_edge_devices', detail: `${p.item_ids.length} item(s) changed` })));
      return rows.map(() => null);
    });
  return {
    'payment.post-capture': postCapture,
    'order.dispatch': dispatch,
    'stock.release-reservation': release,
    'stats.daily': stats,
    'payment.finalise': finalise,
    'stock.edge-sync': edgeSync,
  } as const;
}
