import type { Logger } from '@pos/kernel';
import { enqueueOutboxUnlessPending, type CentralDb } from '@pos/db';
import type { JobMessage } from '@pos/kernel/queues/index';

export interface OutboxSchedulerOptions {
  db: CentralDb;
  log: Logger;
  /** Names the schedule in logs (`heartbeat`, `fiscal recovery`). */
  what: string;
  /** Between runs. */
  intervalMs: number;
  /** The job to write, built at each run (it may carry the time). */
  message: () => JobMessage;
  /** Called after a job is written to the outbox (the worker triggers its relay). */
  onEnqueued?: () => void;
}

/**
 * Writes a job to the outbox at start and then every `intervalMs`, so scheduled work goes the way all
 * after-commit work goes (outbox, relay, queue, processor) and survives a Redis outage. A run that
 * fails is logged; the next one tries again. A run is not written while an earlier one with the same
 * payload (its time `at` aside) is still pending: one pending run covers what a pile of them would. Every worker replica schedules its own runs, so a
 * scheduled job must be safe to run several times at once.
 */
export class OutboxScheduler {
  private timer: ReturnType<typeof setInterval> | undefined;
  private inflight: Promise<void> | undefined;

  constructor(private readonly schedule: OutboxSchedulerOptions) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.enqueue(), this.schedule.intervalMs);
    void this.enqueue();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.inflight;
  }

  /** Enqueues one run now (joins the one being written, if any). */
  enqueue(): Promise<void> {
    if (this.inflight) return this.inflight;
    this.inflight = (async () => {
      try {
        // A run still pending (the relay cannot reach Redis, or is behind) stands for this one too.
        if (await enqueueOutboxUnlessPending(this.schedule.db, this.schedule.message())) this.schedule.onEnqueued?.();
      } catch (e) {
        this.schedule.log.warn(`${this.schedule.what} not enqueued`, { err: e instanceof Error ? e.message : String(e) });
      }
    })().finally(() => (this.inflight = undefined));
    return this.inflight;
  }
}
