import type { Clock, Logger } from '@pos/kernel';
import type { CentralDb } from '@pos/db';
import { integrationOrderImportSweepJob, jobMessage } from '@pos/kernel/queues/index';
import { OutboxScheduler } from './outbox-scheduler.ts';

/** Between marketplace order import sweeps: an order the marketplace could not hand us waits a few minutes at most once it is back. */
export const DEFAULT_ORDER_IMPORT_SWEEP_MS = 2 * 60_000;

/** Writes an `integration.order-import-sweep` job to the outbox at start and then every `intervalMs`. */
export function orderImportSweepScheduler(opts: { db: CentralDb; log: Logger; clock: Clock; intervalMs: number; onEnqueued?: () => void }): OutboxScheduler {
  return new OutboxScheduler({
    db: opts.db,
    log: opts.log,
    what: 'marketplace order import sweep',
    intervalMs: opts.intervalMs,
    message: () => jobMessage(integrationOrderImportSweepJob, { at: opts.clock.now().toISOString() }),
    ...(opts.onEnqueued ? { onEnqueued: opts.onEnqueued } : {}),
  });
}
