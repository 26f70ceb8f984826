import type { Clock, Logger } from '@pos/kernel';
import type { CentralDb } from '@pos/db';
import { fiscalRecoverJob, jobMessage } from '@pos/kernel/queues/index';
import { OutboxScheduler } from './outbox-scheduler.ts';

/** Between fiscal recovery sweeps unless FISCAL_RECOVER_MS says otherwise. */
export const DEFAULT_FISCAL_RECOVER_MS = 60_000;

export interface FiscalRecoverSchedulerOptions {
  db: CentralDb;
  log: Logger;
  clock: Clock;
  /** Between sweeps (default 60 s). */
  intervalMs?: number;
  /** Called after a sweep is written to the outbox (the worker triggers its relay). */
  onEnqueued?: () => void;
}

/**
 * Writes a `fiscal.recover` job (every merchant) to the outbox at start and then every `intervalMs`:
 * the sweep completes the journal entries a remote fiscal module did not answer, and the records
 * waiting on them (DESIGN 2, Fiscal). Sweeps of several replicas may overlap: completing an entry
 * is safe to repeat.
 */
export function fiscalRecoverScheduler(opts: FiscalRecoverSchedulerOptions): OutboxScheduler {
  return new OutboxScheduler({
    db: opts.db,
    log: opts.log,
    what: 'fiscal recovery sweep',
    intervalMs: opts.intervalMs ?? DEFAULT_FISCAL_RECOVER_MS,
    message: () => jobMessage(fiscalRecoverJob, { at: opts.clock.now().toISOString() }),
    ...(opts.onEnqueued ? { onEnqueued: opts.onEnqueued } : {}),
  });
}
