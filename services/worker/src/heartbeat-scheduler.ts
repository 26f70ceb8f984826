import type { Clock, Logger } from '@pos/kernel';
import type { CentralDb } from '@pos/db';
import { heartbeatJob, jobMessage } from '@pos/kernel/queues/index';
import { OutboxScheduler } from './outbox-scheduler.ts';

export const DEFAULT_HEARTBEAT_MS = 15_000;

export interface HeartbeatSchedulerOptions {
  db: CentralDb;
  log: Logger;
  clock: Clock;
  /** Between beats (default 15 s). */
  intervalMs?: number;
  /** The `heartbeats.service` the beats update (default `worker`). */
  service?: string;
  /** Called after a beat is written to the outbox (the worker triggers its relay). */
  onEnqueued?: () => void;
}

/**
 * Writes a `heartbeat` job to the outbox at start and then every `intervalMs`: the beat goes the way
 * all after-commit work goes (outbox, relay, queue, processor), so a fresh `heartbeats` row shows the
 * whole path works.
 */
export class HeartbeatScheduler extends OutboxScheduler {
  constructor(opts: HeartbeatSchedulerOptions) {
    super({
      db: opts.db,
      log: opts.log,
      what: 'heartbeat',
      intervalMs: opts.intervalMs ?? DEFAULT_HEARTBEAT_MS,
      message: () => jobMessage(heartbeatJob, { service: opts.service ?? 'worker', at: opts.clock.now().toISOString() }),
      ...(opts.onEnqueued ? { onEnqueued: opts.onEnqueued } : {}),
    });
  }

  /** Enqueues one beat now; errors are logged (the next beat tries again). */
  beat(): Promise<void> {
    return this.enqueue();
  }
}
