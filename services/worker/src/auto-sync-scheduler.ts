import type { Clock, Logger } from '@pos/kernel';
import type { CentralDb } from '@pos/db';
import { claimDueAutoSyncs, type ClaimSummary } from '@pos/core/integrations/auto-sync';

/** Between auto-sync passes unless AUTO_SYNC_MS says otherwise: schedules are on :00 and :30. */
export const DEFAULT_AUTO_SYNC_MS = 60_000;

export interface AutoSyncSchedulerOptions {
  db: CentralDb;
  log: Logger;
  clock: Clock;
  intervalMs: number;
  /** Called after a pass wrote sync jobs to the outbox (the worker triggers its relay). */
  onEnqueued?: () => void;
}

/**
 * The daily auto-sync scheduler (spec 1 rule 5): each pass claims due schedules with FOR UPDATE SKIP
 * LOCKED, writes their `integration.auto-sync` jobs to the outbox and moves their next run, so
 * replicas running passes at once never start one run twice.
 */
export class AutoSyncScheduler {
  private timer: ReturnType<typeof setInterval> | undefined;
  private inflight: Promise<ClaimSummary | undefined> | undefined;

  constructor(private readonly opts: AutoSyncSchedulerOptions) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.pass(), this.opts.intervalMs);
    void this.pass();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.inflight;
  }

  /** One pass now (joins the one running, if any). */
  pass(): Promise<ClaimSummary | undefined> {
    if (this.inflight) return this.inflight;
    this.inflight = (async () => {
      try {
        const r = await claimDueAutoSyncs(this.opts.db, this.opts.clock.now());
        if (r.started > 0) this.opts.onEnqueued?.();
        return r;
      } catch (e) {
        this.opts.log.warn('auto-sync pass failed', { err: e instanceof Error ? e.message : String(e) });
        return undefined;
      }
    })().finally(() => (this.inflight = undefined));
    return this.inflight;
  }
}
