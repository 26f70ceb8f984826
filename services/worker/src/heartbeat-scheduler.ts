import type { Clock, Logger } from '@pos/kernel';
import { enqueueOutbox, type CentralDb } from '@pos/db';
import { heartbeatJob, jobMessage } from '@pos/kernel/queues/index';

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
export class HeartbeatScheduler {
  private timer: ReturnType<typeof setInterval> | undefined;
  private inflight: Promise<void> | undefined;

  constructor(private readonly opts: HeartbeatSchedulerOptions) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.beat(), this.opts.intervalMs ?? DEFAULT_HEARTBEAT_MS);
    void this.beat();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.inflight;
  }

  /** Enqueues one beat now; errors are logged (the next beat tries again). */
  beat(): Promise<void> {
    if (this.inflight) return this.inflight;
    this.inflight = (async () => {
      try {
        const msg = jobMessage(heartbeatJob, { service: this.opts.service ?? 'worker', at: this.opts.clock.now().toISOString() });
        await enqueueOutbox(this.opts.db, msg);
        this.opts.onEnqueued?.();
      } catch (e) {
        this.opts.log.warn('heartbeat not enqueued', { err: e instanceof Error ? e.message : String(e) });
      }
    })().finally(() => (this.inflight = undefined));
    return this.inflight;
  }
}
