/** In-process counters of one running worker, rendered in the Prometheus text format by `GET /metrics`. */
export class WorkerMetrics {
  private readonly processed = new Map<string, number>();
  private readonly failed = new Map<string, number>();
  private readonly skipped = new Map<string, number>();
  outboxRelayed = 0;
  outboxRelayFailures = 0;
  /** Last time at least one row was relayed. */
  lastRelayAt: Date | undefined;
  /** Last poll of the outbox that completed without error (rows or not). */
  lastPollAt: Date | undefined;

  jobProcessed(job: string): void {
    bump(this.processed, job);
  }
  jobFailed(job: string): void {
    bump(this.failed, job);
  }
  /** A job already completed under the same id (a re-relay after a crash). */
  jobSkipped(job: string): void {
    bump(this.skipped, job);
  }
  processedCount(job: string): number {
    return this.processed.get(job) ?? 0;
  }
  failedCount(job: string): number {
    return this.failed.get(job) ?? 0;
  }

  /** `outbox` is read at scrape time; undefined when the database did not answer. */
  render(outbox: { pending: number; oldestPendingAgeS: number } | undefined, knownJobs: readonly string[]): string {
    const lines: string[] = [];
    const perJob = (name: string, help: string, values: Map<string, number>) => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} counter`);
      const jobs = new Set([...knownJobs, ...values.keys()]);
      for (const job of [...jobs].sort()) lines.push(`${name}{job="${escapeLabel(job)}"} ${values.get(job) ?? 0}`);
    };
    const single = (name: string, type: 'counter' | 'gauge', help: string, value: number | undefined) => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
      if (value !== undefined) lines.push(`${name} ${value}`);
    };
    perJob('worker_jobs_processed_total', 'Job runs that succeeded, by job name.', this.processed);
    perJob('worker_jobs_failed_total', 'Job runs that failed (invalid payload, handler error, unknown job), by job name.', this.failed);
    perJob('worker_jobs_skipped_total', 'Jobs skipped because the same outbox row had already been processed.', this.skipped);
    single('worker_outbox_relayed_total', 'counter', 'Outbox rows relayed to the queues by this process.', this.outboxRelayed);
    single('worker_outbox_relay_failures_total', 'counter', 'Outbox rows left pending because Redis refused them.', this.outboxRelayFailures);
    single('worker_outbox_pending', 'gauge', 'Outbox rows not yet relayed.', outbox?.pending);
    single('worker_outbox_oldest_pending_age_seconds', 'gauge', 'Age of the oldest pending outbox row (0 when none).', outbox?.oldestPendingAgeS);
    single('worker_outbox_last_relay_timestamp_seconds', 'gauge', 'Unix time of the last relay that moved at least one row.', seconds(this.lastRelayAt));
    single('worker_outbox_last_poll_timestamp_seconds', 'gauge', 'Unix time of the last successful outbox poll.', seconds(this.lastPollAt));
    return lines.join('\n') + '\n';
  }
}

function bump(m: Map<string, number>, key: string): void {
  m.set(key, (m.get(key) ?? 0) + 1);
}

function seconds(d: Date | undefined): number | undefined {
  return d === undefined ? undefined : d.getTime() / 1000;
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
