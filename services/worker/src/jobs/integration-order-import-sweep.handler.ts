import type Redis from 'ioredis';
import type { integrationOrderImportSweepJob } from '@pos/kernel/queues/index';
import { sweepPendingImports } from '@pos/core/integrations/marketplace-import-recovery';
import { claimFor } from './sweep-claim.ts';
import type { JobHandler } from './job-handler.ts';

/** An event re-queued is not re-queued again for this long (its import may only be slow, behind a backlog). */
export const IMPORT_REQUEUE_EVERY_MS = 10 * 60_000;

/** `integration.order-import-sweep`: the marketplace order events whose import never finished, queued again. */
export function createOrderImportSweepHandler(deps: { readonly redis?: Redis }): JobHandler<typeof integrationOrderImportSweepJob> {
  return async (_payload, ctx) => {
    await sweepPendingImports(ctx.db, ctx.log, ctx.clock.now(), (id) => claimFor(deps.redis, `order_import_requeue:${id}`, IMPORT_REQUEUE_EVERY_MS));
  };
}
