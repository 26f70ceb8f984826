import type { webhooksPurgeJob } from '@pos/kernel/queues/index';
import { purgeExpiredWebhooks } from '@pos/core/webhooks/webhook-log';
import { purgeEndedPendingLogins } from '@pos/core/accounts/second-factor';
import type { JobHandler } from './job-handler.ts';

/** The hourly central purge: the webhook log rows whose retention ended (card-b rule 2), and pending two-factor sign-ins a day past their end. */
export const handleWebhooksPurge: JobHandler<typeof webhooksPurgeJob> = async (_payload, ctx) => {
  const deleted = await purgeExpiredWebhooks(ctx.db, ctx.clock.now());
  if (deleted) ctx.log.info('webhook log purged', { deleted });
  const pending = await purgeEndedPendingLogins(ctx.db, ctx.clock.now());
  if (pending) ctx.log.info('ended pending sign-ins purged', { deleted: pending });
};
