import { withWriteRetry, type TenantDb, type TenantTx } from '@pos/db';
import type { Clock, Logger } from '@pos/kernel';
import type { FiscalSubject, RecoveryHooks } from '../../fiscal/index.ts';
import { signedEventOf } from '../../fiscal/journal-rows.ts';
import { SIGNED_CHANGE_KINDS } from '../signed-change/registry.ts';
import type { SignedChangeKind } from '../signed-change/signed-change.ts';

// Finishing the register changes a remote fiscal module signed (or refused) late.
//
// With a remote module, a signed change commits its reservation first, then the module is called
// (signed-change.ts). When the module is unreachable the reservation stays as it was committed (a
// SETTLING order, a movement without journal id, a refund without `fiscal`, a closed day whose Z
// report has no `fiscal`) and the recovery job (`recoverPendingEntries`) re-sends the entry later.
// The hooks are derived from the signed-change registry: the subject type of the entry names its kind,
// and the kind's own `finish` (signed) or `undo` (refused) runs, the very code the request runs with
// the module's answer. Each locks its record and looks at what is already written, so running it twice
// (or beside the request) changes nothing the second time. Subjects of no kind are left alone.

const inTx = <T>(tdb: TenantDb, fn: (tx: TenantTx) => Promise<T>): Promise<T> => withWriteRetry(() => tdb.transaction().execute(fn));

/** The recovery hooks of `kinds` (default: the register's registry), by journal subject type. */
export function recoveryHooksOf(kinds: readonly SignedChangeKind<unknown>[], clock: Pick<Clock, 'now'>, log?: Logger): RecoveryHooks {
  const bySubject = new Map<string, SignedChangeKind<unknown>>();
  for (const kind of kinds) {
    if (bySubject.has(kind.subjectType)) throw new Error(`Two signed-change kinds share the subject type ${kind.subjectType}`);
    bySubject.set(kind.subjectType, kind);
  }
  const kindOf = (subject: FiscalSubject | null) => (subject ? bySubject.get(subject.type) : undefined);
  return {
    async onSigned(tdb, signed) {
      const kind = kindOf(signed.subject);
      if (!kind || !signed.subject) return;
      const { id } = signed.subject;
      await inTx(tdb, (tx) => kind.finish(tx, id, signed, clock.now()));
      // What the request would have done after a synchronous signature; never fails the recovery.
      await kind.afterRecovered?.(tdb, id, clock.now()).catch((err) => log?.warn('after-recovery step failed', { kind: kind.name, subject_id: id, err }));
    },
    async onFailed(tdb, failed) {
      const kind = kindOf(failed.subject);
      if (!kind || !failed.subject) return;
      const { id } = failed.subject;
      await inTx(tdb, (tx) => kind.undo(tx, id, { journal_id: failed.journal_id }, clock.now()));
    },
    async sweep(tdb, olderThan) {
      let finished = 0;
      let undone = 0;
      for (const kind of bySubject.values()) {
        if (!kind.unfinished) continue;
        for (const id of await kind.unfinished(tdb, olderThan, SWEEP_LIMIT)) {
          // The record's latest entry: pending ones are the pending sweep's; none, nothing was counted.
          const entry = await tdb.selectFrom('fiscal_journal').selectAll().where('subject_type', '=', kind.subjectType).where('subject_id', '=', id).orderBy('created_at', 'desc').orderBy('seq', 'desc').limit(1).executeTakeFirst();
          if (!entry || entry.status === 'pending') continue;
          try {
            if (entry.status === 'signed') {
              const signed = signedEventOf(entry);
              await inTx(tdb, (tx) => kind.finish(tx, id, signed, clock.now()));
              await kind.afterRecovered?.(tdb, id, clock.now()).catch((err) => log?.warn('after-recovery step failed', { kind: kind.name, subject_id: id, err }));
              finished++;
            } else {
              await inTx(tdb, (tx) => kind.undo(tx, id, { journal_id: entry.id }, clock.now()));
              undone++;
            }
          } catch (err) {
            log?.error('a record left behind could not be finished', { kind: kind.name, subject_id: id, journal_id: entry.id, err });
          }
        }
      }
      return { finished, undone };
    },
  };
}

/** Records per kind a sweep finishes at most (the rest wait for the next run). */
const SWEEP_LIMIT = 200;

/**
 * The recovery hooks of the register (`recoverPendingEntries`, the worker's `fiscal.recover` job):
 * sales (SETTLING -> SETTLED or back to OPEN), refunds, till movements, Z closes; X report prints and
 * work events need nothing. Every hook is idempotent.
 */
export function registerRecoveryHooks(clock: Pick<Clock, 'now'>, log?: Logger): RecoveryHooks {
  return recoveryHooksOf(SIGNED_CHANGE_KINDS, clock, log);
}
