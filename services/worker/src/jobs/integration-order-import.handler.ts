import type Redis from 'ioredis';
import type { integrationOrderImportJob } from '@pos/kernel/queues/index';
import { importMarketplaceOrder } from '@pos/core/integrations/marketplace-orders';
import { importGaveUp } from '@pos/core/integrations/marketplace-import-recovery';
import type { SyncClients } from '@pos/core/integrations/sync-runners';
import type { JobHandler } from './job-handler.ts';

/**
 * `integration.order-import`: one marketplace order event made (or kept) one transaction here through
 * the marketplace's client (`marketplace-orders.ts`). The marketplace unreachable throws, so bee-queue
 * retries with backoff; the last run failing marks the delivery's log row failed (the event stays
 * pending: the import sweep re-queues it). Every other outcome is recorded on the event.
 */
export function createOrderImportHandler(deps: { readonly redis?: Redis; readonly integrations: SyncClients }): JobHandler<typeof integrationOrderImportJob> {
  return async (payload, ctx) => {
    if (!deps.redis) throw new Error('integration.order-import needs the worker to be built with Redis (capture lock)');
    let r;
    try {
      r = await importMarketplaceOrder(
        { central: ctx.db, redis: deps.redis, log: ctx.log, now: () => ctx.clock.now(), clients: { 'delivery-a': deps.integrations.deliveryA, 'delivery-b': deps.integrations.deliveryB } },
        payload,
      );
    } catch (e) {
      // Out of retries: the event stays pending for the import sweep, and its delivery is shown failed (replayable).
      if (ctx.finalAttempt) await importGaveUp(ctx.db, ctx.log, payload, e instanceof Error ? e.message : String(e)).catch((err: unknown) => ctx.log.warn('could not record the import giving up', { err }));
      throw e;
    }
    ctx.log.info('marketplace order event handled', { provider: payload.provider, order_id: payload.externalOrderId, outcome: r.outcome, transaction_id: r.transactionId, detail: r.detail });
  };
}
