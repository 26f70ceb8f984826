import type { webhooksPurgeJob } from '@pos/kernel/queues/index';
import { purgeExpiredWebhooks } from '@pos/core/webhooks/webhook-log';
import type { JobHandler } from './job-handler.ts';

/** Deletes the webhook log rows whose retention ended (card-b rule 2). */
export const handleWebhooksPurge: JobHandler<typeof webhooksPurgeJob> = async (_payload, ctx) => {
  const deleted = await purgeExpiredWebhooks(ctx.db, ctx.clock.now());
  if (deleted) ctx.log.info('webhook log purged', { deleted });
};
