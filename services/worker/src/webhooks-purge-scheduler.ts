import type { Clock, Logger } from '@pos/kernel';
import type { CentralDb } from '@pos/db';
import { jobMessage, webhooksPurgeJob } from '@pos/kernel/queues/index';
import { OutboxScheduler } from './outbox-scheduler.ts';

/** Hourly: expired webhook log rows (90-day card-b retention) never wait long. */
export const DEFAULT_WEBHOOK_PURGE_MS = 3_600_000;

/** Writes a `webhooks.purge` job to the outbox at start and then every `intervalMs`. */
export function webhooksPurgeScheduler(opts: { db: CentralDb; log: Logger; clock: Clock; intervalMs: number; onEnqueued?: () => void }): OutboxScheduler {
  return new OutboxScheduler({
    db: opts.db,
    log: opts.log,
    what: 'webhook log purge',
    intervalMs: opts.intervalMs,
    message: () => jobMessage(webhooksPurgeJob, { at: opts.clock.now().toISOString() }),
    ...(opts.onEnqueued ? { onEnqueued: opts.onEnqueued } : {}),
  });
}
