import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';

/**
 * The counters of one running worker in a prom-client registry, rendered by `GET /metrics`: job runs by
 * outcome and job name, outbox relaying, the outbox backlog (read at scrape time) and the process's
 * default metrics (CPU, memory, event-loop lag).
 */
export class WorkerMetrics {
  readonly registry = new Registry();
  private readonly processed = new Counter({ name: 'worker_jobs_processed_total', help: 'Job runs that succeeded, by job name.', labelNames: ['job'], registers: [this.registry] });
  private readonly failed = new Counter({ name: 'worker_jobs_failed_total', help: 'Job runs that failed (invalid payload, handler error, unknown job), by job name.', labelNames: ['job'], registers: [this.registry] });
  private readonly skipped = new Counter({ name: 'worker_jobs_skipped_total', help: 'Jobs skipped because the same outbox row had already been processed.', labelNames: ['job'], registers: [this.registry] });
  private readonly relayedRows = new Counter({ name: 'worker_outbox_relayed_total', help: 'Outbox rows relayed to the queues by this process.', registers: [this.registry] });
  private readonly relayFailures = new Counter({ name: 'worker_outbox_relay_failures_total', help: 'Outbox rows left pending because Redis refused them.', registers: [this.registry] });
  private readonly pending = new Gauge({ name: 'worker_outbox_pending', help: 'Outbox rows not yet relayed.', registers: [this.registry] });
  private readonly oldestAge = new Gauge({ name: 'worker_outbox_oldest_pending_age_seconds', help: 'Age of the oldest pending outbox row (0 when none).', registers: [this.registry] });
  private readonly lastRelay = new Gauge({ name: 'worker_outbox_last_relay_timestamp_seconds', help: 'Unix time of the last relay that moved at least one row.', registers: [this.registry] });
  private readonly lastPoll = new Gauge({ name: 'worker_outbox_last_poll_timestamp_seconds', help: 'Unix time of the last successful outbox poll.', registers: [this.registry] });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** `n` runs of `job` succeeded (a batch counts its rows at once). */
  jobProcessed(job: string, n = 1): void {
    this.processed.inc({ job }, n);
  }
  jobFailed(job: string): void {
    this.failed.inc({ job });
  }
  /** A job already completed under the same id (a re-relay after a crash). */
  jobSkipped(job: string): void {
    this.skipped.inc({ job });
  }
  /** One outbox poll that completed: rows relayed and rows Redis refused. */
  outboxPolled(relayed: number, failed: number, at = new Date()): void {
    this.relayedRows.inc(relayed);
    this.relayFailures.inc(failed);
    this.lastPoll.set(at.getTime() / 1000);
    if (relayed > 0) this.lastRelay.set(at.getTime() / 1000);
  }

  processedCount(job: string): Promise<number> {
    return valueOf(this.processed, { job });
  }
  failedCount(job: string): Promise<number> {
    return valueOf(this.failed, { job });
  }
  outboxRelayed(): Promise<number> {
    return valueOf(this.relayedRows);
  }
  outboxRelayFailures(): Promise<number> {
    return valueOf(this.relayFailures);
  }

  /** Prometheus text. `outbox` is read at scrape time (undefined when the database did not answer); known jobs show 0. */
  async render(outbox: { pending: number; oldestPendingAgeS: number } | undefined, knownJobs: readonly string[]): Promise<string> {
    for (const job of knownJobs) for (const c of [this.processed, this.failed, this.skipped]) c.inc({ job }, 0);
    if (outbox) {
      this.pending.set(outbox.pending);
      this.oldestAge.set(outbox.oldestPendingAgeS);
    } else {
      this.pending.reset();
      this.oldestAge.reset();
    }
    return this.registry.metrics();
  }
}

async function valueOf(metric: Counter<string>, labels: Record<string, string> = {}): Promise<number> {
  const { values } = await metric.get();
  const want = Object.entries(labels);
  return values.find((v) => want.every(([k, x]) => v.labels[k] === x))?.value ?? 0;
}
