import type { Clock, Logger } from '@pos/kernel';
import type { CentralDb } from '@pos/db';
import { jobMessage, postCaptureSweepJob } from '@pos/kernel/queues/index';
import { OutboxScheduler } from './outbox-scheduler.ts';

/** Between post-capture sweeps unless POST_CAPTURE_SWEEP_MS says otherwise. */
export const DEFAULT_POST_CAPTURE_SWEEP_MS = 5 * 60_000;

/** Writes a `payment.post-capture-sweep` job (every merchant) to the outbox at start and then every `intervalMs`. */
export function postCaptureSweepScheduler(opts: { db: CentralDb; log: Logger; clock: Clock; intervalMs: number; onEnqueued?: () => void }): OutboxScheduler {
  return new OutboxScheduler({
    db: opts.db,
    log: opts.log,
    what: 'post-capture sweep',
    intervalMs: opts.intervalMs,
    message: () => jobMessage(postCaptureSweepJob, { at: opts.clock.now().toISOString() }),
    ...(opts.onEnqueued ? { onEnqueued: opts.onEnqueued } : {}),
  });
}
