import type Redis from 'ioredis';
import { bindTenant } from '@pos/db';
import type {
  orderDispatchJob,
  paymentCaptureJob,
  paymentFinaliseJob,
  paymentPostCaptureJob,
  statsDailyJob,
  stockEdgeSyncJob,
  stockReleaseReservationJob,
} from '@pos/kernel/queues/index';
import type { PaymentProviders } from '@pos/core/payments/payment-providers';
import { capturePayment } from '@pos/core/payments/capture-payment';
import { addToDailyStats, dispatchOrderToRegister, finalisePayment, kitchenTicketsListener, printOrderReceipt, recordStep, runPostCapture, writeKitchenItems, writeKitchenTickets, type PaymentCapturedListener } from '@pos/core/payments/post-capture';
import { kitchenPublisher } from '@pos/core/kitchen/kitchen-events';
import { publishKitchenEvent } from '@pos/core/payments/payment-events';
import type { JobHandler } from './job-handler.ts';
import type { RegisterDispatchDeps } from '@pos/core/integrations/dispatch-register';

export interface PaymentHandlerDeps {
  readonly redis?: Redis;
  readonly payments?: PaymentProviders;
  /** The location registers orders are dispatched to (issue 17); unset: recorded as not configured. */
  readonly registers?: RegisterDispatchDeps;
}

/** The payment jobs' handlers (spec 3 "Capture rules" and "Post-capture sequence"). */
export function createPaymentHandlers(deps: PaymentHandlerDeps) {
  const capture: JobHandler<typeof paymentCaptureJob> = async (p, ctx) => {
    if (!deps.redis || !deps.payments) throw new Error('payment.capture needs the worker to be built with Redis and payment providers');
    await capturePayment(
      { tdb: bindTenant(ctx.db, p.tenant_database), tenantDatabase: p.tenant_database, redis: deps.redis, providers: deps.payments, log: ctx.log, now: () => ctx.clock.now() },
      p.transaction_id,
      { kind: 'poll' },
    );
  };
  const postCapture: JobHandler<typeof paymentPostCaptureJob> = (p, ctx) => {
    // PaymentCaptured listeners: the kitchen documents and the stations' tickets, then the kitchen event on the real-time channel.
    const redis = deps.redis;
    const listeners: PaymentCapturedListener[] = [writeKitchenItems, redis ? kitchenTicketsListener(kitchenPublisher(redis, p.tenant_database, ctx.log)) : writeKitchenTickets, printOrderReceipt];
    if (redis) {
      listeners.push((_db, t, lines) =>
        publishKitchenEvent(redis, p.tenant_database, { location_id: t.location_id, transaction_id: t.id, order_no: t.order_no, items: lines.map((l) => ({ name: l.name, qty: l.qty })) }, ctx.log),
      );
    }
    return runPostCapture(bindTenant(ctx.db, p.tenant_database), p.tenant_database, p.transaction_id, p.stock_changed, listeners);
  };
  const dispatch: JobHandler<typeof orderDispatchJob> = (p, ctx) => dispatchOrderToRegister(bindTenant(ctx.db, p.tenant_database), p.transaction_id, deps.registers ? { deps: deps.registers, tenantDatabase: p.tenant_database } : undefined);
  const release: JobHandler<typeof stockReleaseReservationJob> = async (p, ctx) => {
    await recordStep(bindTenant(ctx.db, p.tenant_database), p.transaction_id, 'stock_release', 'nothing_reserved', `cart ${p.cart_session_id}: no stock reservations are kept yet`);
  };
  const stats: JobHandler<typeof statsDailyJob> = (p, ctx) => addToDailyStats(bindTenant(ctx.db, p.tenant_database), p.transaction_id);
  const finalise: JobHandler<typeof paymentFinaliseJob> = async (p, ctx) => {
    await finalisePayment(bindTenant(ctx.db, p.tenant_database), p.transaction_id);
  };
  const edgeSync: JobHandler<typeof stockEdgeSyncJob> = async (p, ctx) => {
    await recordStep(bindTenant(ctx.db, p.tenant_database), p.transaction_id, 'edge_stock_sync', 'no_edge_devices', `${p.item_ids.length} item(s) changed`);
  };
  return {
    'payment.capture': capture,
    'payment.post-capture': postCapture,
    'order.dispatch': dispatch,
    'stock.release-reservation': release,
    'stats.daily': stats,
    'payment.finalise': finalise,
    'stock.edge-sync': edgeSync,
  } as const;
}
