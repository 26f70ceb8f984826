import { withWriteRetry, type TenantDb, type TenantTx } from '@pos/db';
import { AppError } from '@pos/kernel';
import { activeFdmFor, isSigning, notEnrolledError, type FiscalService, type SignedFiscalEvent, type SignEventInput } from '../../fiscal/index.ts';

/** What a signed register change needs from the fiscal service (the whole FiscalService in production). */
export type SignedChangeFiscal = Pick<FiscalService, 'signInTransaction' | 'signEvent'>;

/**
 * A register state change that is signed as one fiscal event (till movement, refund, Z close).
 * - `prepare` (in a transaction): checks and locks, writes the change as a reservation (e.g. the
 *   movement row without its journal id) and says what to sign;
 * - `finish` (in a transaction): records the signature on the change;
 * - `undo` (remote module only, in a transaction): the module refused the event and counted
 *   nothing, so the reservation is removed.
 */
export interface SignedChange<S, R> {
  readonly locationId: string;
  prepare(tx: TenantTx): Promise<{ readonly input: SignEventInput; readonly state: S }>;
  finish(tx: TenantTx, state: S, signed: SignedFiscalEvent): Promise<R>;
  undo(tx: TenantTx, state: S): Promise<void>;
}

/**
 * Runs a signed change by the location's enrolment (DESIGN 2, Fiscal):
 * - software module: ONE transaction (retried on write conflicts) runs prepare, signs and journals
 *   the event, and finishes: the change, the counters and the journal entry commit together;
 * - remote module: the reservation commits first, the module is called outside any transaction,
 *   then the signature is recorded. A refusal (422 `fiscal_refused`) undoes the reservation; an
 *   unreachable module (503 `fiscal_unreachable`) keeps it, with its journal entry pending for the
 *   recovery job, whose hooks (`registerRecoveryHooks`, pos/fiscal-recovery) then record the late
 *   signature as `finish` does or undo the change as `undo` does.
 * Without an active enrolment: 422 `fiscal_not_enrolled`, nothing written.
 */
export async function runSignedChange<S, R>(db: TenantDb, fiscal: SignedChangeFiscal, change: SignedChange<S, R>): Promise<R> {
  const fdm = await activeFdmFor(db, change.locationId);
  if (!isSigning(fdm)) throw notEnrolledError();
  if (fdm.mode !== 'remote') {
    return withWriteRetry(() =>
      db.transaction().execute(async (tx) => {
        const { input, state } = await change.prepare(tx);
        const signed = await fiscal.signInTransaction(tx, input);
        return change.finish(tx, state, signed);
      }),
    );
  }
  const { input, state } = await withWriteRetry(() => db.transaction().execute((tx) => change.prepare(tx)));
  let signed: SignedFiscalEvent;
  try {
    signed = await fiscal.signEvent(db, input);
  } catch (e) {
    if (!(e instanceof AppError && e.reason === 'fiscal_unreachable')) {
      await withWriteRetry(() => db.transaction().execute((tx) => change.undo(tx, state)));
    }
    throw e;
  }
  return withWriteRetry(() => db.transaction().execute((tx) => change.finish(tx, state, signed)));
}

// The stored signature block is shared with sales; it lives with the fiscal service.
export { storedSignature, type StoredSignature } from '../../fiscal/stored-signature.ts';
