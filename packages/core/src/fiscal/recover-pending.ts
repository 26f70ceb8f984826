import { sql } from 'kysely';
import type { TenantDb } from '@pos/db';
import { systemClock, type Clock, type Logger } from '@pos/kernel';
import type { FiscalService } from './fiscal-service.ts';
import { subjectOf, type FiscalSignError, type FiscalSubject, type SignedFiscalEvent } from './journal-rows.ts';
import type { PendingOutcome } from './sign-event.ts';

/** Lets the owner of a subject finish its record once recovery settles the entry (must be idempotent). */
export interface RecoveryHooks {
  /** The module signed: e.g. move the order from SETTLING to SETTLED with the result. */
  onSigned?(tdb: TenantDb, signed: SignedFiscalEvent): Promise<void>;
  /** The module refused (it counted nothing): e.g. put the order back to OPEN. */
  onFailed?(tdb: TenantDb, failed: { readonly journal_id: string; readonly subject: FiscalSubject | null; readonly error: FiscalSignError }): Promise<void>;
  /**
   * After the pending entries: finish (or undo) the records whose entry is complete but which were
   * left as reservations, written at or before `olderThan` (a process stopped between the two steps).
   */
  sweep?(tdb: TenantDb, olderThan: Date): Promise<{ readonly finished: number; readonly undone: number }>;
}

export interface RecoverOptions {
  /** Only entries at least this old (default 60 s), so calls still in flight are left alone. */
  readonly olderThanMs?: number;
  /** At most this many entries per run (default 500). */
  readonly limit?: number;
  readonly clock?: Clock;
  readonly hooks?: RecoveryHooks;
  readonly log?: Logger;
}

export interface RecoverySummary {
  readonly signed: number;
  readonly failed: number;
  /** Still pending (module unreachable or not configured). */
  readonly pending: number;
  readonly outcomes: readonly PendingOutcome[];
}

/**
 * Re-sends the pending journal entries of remote modules, in seq order per device, and completes
 * them. Safe to repeat and to run beside the normal flow: the request is rebuilt from the stored
 * payload (a module that replays identical requests does not count twice), and completing an entry
 * someone else completed returns it as it is. After the first unreachable answer the rest of that
 * device's entries wait for the next run.
 */
export async function recoverPendingEntries(tdb: TenantDb, service: Pick<FiscalService, 'completePending'>, opts: RecoverOptions = {}): Promise<RecoverySummary> {
  const clock = opts.clock ?? systemClock;
  const cutoff = new Date(clock.now().getTime() - (opts.olderThanMs ?? 60_000));
  // Each device's entries in seq order, the devices taken in turn (every device's first, then every
  // second...): ordered by device, one device's backlog of `limit` entries (a module down for days, a
  // retired device whose secret is gone) filled every run, and the other devices were never reached.
  const rows = await tdb
    .selectFrom((eb) =>
      eb
        .selectFrom('fiscal_journal')
        .select(['id', 'fdm_id', 'seq', 'subject_type', 'subject_id', sql<string>`row_number() over (partition by fdm_id order by seq)`.as('turn')])
        .where('status', '=', 'pending')
        .where('created_at', '<=', cutoff)
        .as('p'),
    )
    .select(['id', 'fdm_id', 'seq', 'subject_type', 'subject_id'])
    .orderBy('turn')
    .orderBy('fdm_id')
    .limit(opts.limit ?? 500)
    .execute();

  const outcomes: PendingOutcome[] = [];
  const blocked = new Set<string>();
  let signed = 0;
  let failed = 0;
  let pending = 0;
  for (const row of rows) {
    if (blocked.has(row.fdm_id)) {
      pending++;
      continue;
    }
    let outcome: PendingOutcome;
    try {
      outcome = await service.completePending(tdb, row.id);
    } catch (e) {
      // Not an answer of the module (e.g. an unreadable stored payload): leave it, log it, go on.
      opts.log?.error('fiscal recovery could not resend an entry', { journal_id: row.id, fdm_id: row.fdm_id, seq: Number(row.seq), err: e });
      outcome = { status: 'pending', journal_id: row.id, reason: 'error', cause: e };
    }
    outcomes.push(outcome);
    switch (outcome.status) {
      case 'signed':
        signed++;
        await runHook(opts, () => opts.hooks?.onSigned?.(tdb, outcome.signed));
        break;
      case 'failed':
        failed++;
        await runHook(opts, () => opts.hooks?.onFailed?.(tdb, { journal_id: outcome.journal_id, subject: subjectOf(row), error: outcome.error }));
        break;
      case 'pending':
        pending++;
        blocked.add(row.fdm_id);
        break;
    }
  }
  if (rows.length > 0) opts.log?.info('fiscal recovery run', { signed, failed, pending });
  if (opts.hooks?.sweep) {
    try {
      const left = await opts.hooks.sweep(tdb, cutoff);
      if (left.finished + left.undone > 0) opts.log?.warn('fiscal recovery finished records left behind by an interrupted change', { ...left });
    } catch (e) {
      opts.log?.error('fiscal recovery could not finish records left behind', { err: e });
    }
  }
  return { signed, failed, pending, outcomes };
}

async function runHook(opts: RecoverOptions, hook: () => Promise<void> | undefined): Promise<void> {
  try {
    await hook();
  } catch (e) {
    // The entry is complete; the subject's owner finishes it on its own retry path.
    opts.log?.error('fiscal recovery hook failed', { err: e });
  }
}
