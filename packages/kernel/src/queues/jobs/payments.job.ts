import { Type } from '@sinclair/typebox';
import { defineJob } from '../job-definition.ts';
import { QUEUES } from '../names.ts';

/**
 * The payment jobs (spec 3 "Capture rules", "Post-capture sequence"). Every payload names the tenant
 * schema and the transaction by its internal id (never by idempotency key). All are safe to repeat.
 */
const Tenant = Type.String({ pattern: '^t_[a-z0-9_]{1,60}$', maxLength: 62 });
const Id = Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$', maxLength: 36 });
const obj = <P extends Record<string, any>>(p: P) => Type.Object(p, { additionalProperties: false });
/** Rows per bee-queue job of the post-capture jobs: their handlers are set-based (one statement for the whole batch). */
const BATCH = 100;

/** Asynchronous capture dispatched by `GET /kiosk/payment/details/{idempotencyKey}`. */
export const paymentCaptureJob = defineJob({
  name: 'payment.capture',
  queue: QUEUES.payments,
  version: 1,
  payload: obj({ tenant_database: Tenant, transaction_id: Id }),
  retries: 2,
  backoffMs: 1000,
});

/**
 * Written by the capture transaction: runs the post-capture sequence in the spec's order. On its own
 * queue: the kitchen documents of a capture never wait behind earlier captures' follow-up jobs.
 */
export const paymentPostCaptureJob = defineJob({
  name: 'payment.post-capture',
  queue: QUEUES.paymentsHigh,
  version: 1,
  payload: obj({ tenant_database: Tenant, transaction_id: Id, stock_changed: Type.Boolean() }),
  retries: 5,
  backoffMs: 500,
  batch: BATCH,
});

/** `processOrderJob`: dispatch the order to the location's register (after the kitchen documents). */
export const orderDispatchJob = defineJob({
  name: 'order.dispatch',
  queue: QUEUES.payments,
  version: 1,
  payload: obj({ tenant_database: Tenant, transaction_id: Id }),
  retries: 3,
  backoffMs: 2000,
  batch: BATCH,
});

/** Release the cart's stock reservation (only queued when a cart session id exists). */
export const stockReleaseReservationJob = defineJob({
  name: 'stock.release-reservation',
  queue: QUEUES.payments,
  version: 1,
  payload: obj({ tenant_database: Tenant, transaction_id: Id, cart_session_id: Type.String({ minLength: 1, maxLength: 100 }) }),
  batch: BATCH,
});

/** The merchant daily-stats update (skipped for test-mode transactions). */
export const statsDailyJob = defineJob({
  name: 'stats.daily',
  queue: QUEUES.payments,
  version: 1,
  payload: obj({ tenant_database: Tenant, transaction_id: Id }),
  batch: BATCH,
});

/** The deferred finalisation job: one attempt, medium-priority payments queue, each step isolated. */
export const paymentFinaliseJob = defineJob({
  name: 'payment.finalise',
  queue: QUEUES.paymentsMedium,
  version: 1,
  payload: obj({ tenant_database: Tenant, transaction_id: Id }),
  retries: 0,
  batch: BATCH,
});

/** Edge stock sync of the items whose stock the capture changed. */
export const stockEdgeSyncJob = defineJob({
  name: 'stock.edge-sync',
  queue: QUEUES.payments,
  version: 1,
  payload: obj({ tenant_database: Tenant, transaction_id: Id, location_id: Id, item_ids: Type.Array(Id, { maxItems: 100 }) }),
  batch: BATCH,
});

export const PAYMENT_JOBS = [paymentCaptureJob, paymentPostCaptureJob, orderDispatchJob, stockReleaseReservationJob, statsDailyJob, paymentFinaliseJob, stockEdgeSyncJob] as const;
