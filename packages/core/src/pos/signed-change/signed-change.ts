import { withWriteRetry, type TenantDb, type TenantTx } from '@pos/db';
import { AppError } from '@pos/kernel';
import {
  activeFdmFor,
  findJournalEntry,
  isSigning,
  notEnrolledError,
  refusedError,
  unreachableError,
  type FdmEnrolment,
  type FiscalService,
  type FiscalSubject,
  type JournalEntryState,
  type SignedFiscalEvent,
  type SignEventInput,
} from '../../fiscal/index.ts';

// One signed-change step for every register change the fiscal module counts (docs/signed-changes.md):
// a sale, a refund, a till movement, an X report print, a Z close, a staff work-in or work-out.
//
// A change KIND (registry.ts) says, once, how a signature lands on its record and how a refusal is
// taken back: `finish` and `undo`. A CALL of the step (the use case) says what this one change is:
// `prepare` checks, locks, writes the change as a reservation and returns what to sign. The step then
// signs by the location's enrolment:
// - in-process signer: ONE transaction runs prepare, signs and journals, and finishes (all or nothing);
//   or, for a call that has one (settle), its own single statement written over the journal head;
// - remote module: the reservation commits with its pending journal entry, the module is called outside any transaction, then the
//   kind finishes (signed) or undoes (refused: it counted nothing). Unreachable: the reservation and
//   its pending journal entry stay, and the recovery job (recovery-hooks.ts, derived from the same
//   registry) later runs the very same `finish` or `undo`.

/** What the step needs from the fiscal service (the whole FiscalService in production). */
export type SignedChangeFiscal = Pick<FiscalService, 'signInTransaction' | 'reserveRemote' | 'sendReserved'>;

/** The step's fiscal service for a use case that also resumes its own pending change (`resumeSignedChange`). */
export type ResumableSignedChangeFiscal = SignedChangeFiscal & Pick<FiscalService, 'completePending'>;

/** The refusal an `undo` answers: null for the call's own refusal just now; the refused entry for recovery. */
export type Refusal = { readonly journal_id: string } | null;

/**
 * How a signature lands on one kind of register change, and how a refusal is taken back. Both run in a
 * transaction, lock the record and look at what is already written first, so a second run (recovery
 * beside the request, a replayed hook) changes nothing.
 */
export interface SignedChangeKind<F> {
  /** A name for logs and docs (`sale`, `refund`, ...). */
  readonly name: string;
  /** The journal subject type of the change's entries (`subject_type`). */
  readonly subjectType: string;
  /**
   * What the 503 `fiscal_unreachable` message says is kept (`the refund`, `the Z report`): "The fiscal
   * data module is unreachable; <kept> is kept and will be signed when it answers." Default: the sale's
   * words (`the sale`).
   */
  readonly kept?: string;
  /** The module signed: record its signature on the change and return the finished record. */
  finish(tx: TenantTx, subjectId: string, signed: SignedFiscalEvent, now: Date): Promise<F>;
  /** The module refused and counted nothing: take the reservation back. */
  undo(tx: TenantTx, subjectId: string, refusal: Refusal, now: Date): Promise<void>;
  /** After the recovery job recorded a late signature (e.g. the sale's receipt); its failure is logged, never fatal. */
  afterRecovered?(tdb: TenantDb, subjectId: string, now: Date): Promise<void>;
  /**
   * Subject ids of this kind's reservations still waiting for their signature, written at or before
   * `olderThan` (at most `limit`). The recovery sweep finishes or undoes those whose journal entry is
   * already complete: a process that stopped between recording the module's answer on the entry and
   * finishing the record left them so, and the sweep of pending entries no longer sees them.
   */
  unfinished?(db: TenantDb, olderThan: Date, limit: number): Promise<string[]>;
}

/** What a prepared change signs: the subject id within its kind, the event input (its subject is the kind's) and the call's state. */
export interface PreparedChange<S> {
  readonly subjectId: string;
  readonly input: Omit<SignEventInput, 'subject'>;
  readonly state: S;
}

/** One run of the step: this change, as the use case describes it. */
export interface SignedChangeCall<F, S, R> {
  readonly locationId: string;
  /** The location's enrolment when the caller already read it (settle's one read); read here otherwise. */
  readonly enrolment?: FdmEnrolment | null;
  /**
   * In a transaction: checks, locks, writes the change as a reservation, says what to sign. A change
   * with nothing to reserve (X report, work event) gives `prepared` instead and opens no transaction
   * of its own with a remote module.
   */
  readonly prepare: ((tx: TenantTx) => Promise<PreparedChange<S>>) | { readonly prepared: PreparedChange<S> };
  /** The answer of the use case from the finished record and the prepared state (runs after commit). */
  respond(finished: F, state: S): R | Promise<R>;
  /**
   * Anything but a remote module: the change's own write over the journal head (one conditional
   * statement, settle-in-process.ts) instead of the interactive transaction. It signs and writes the
   * same change, and checks the enrolment itself once the change's own refusals are checked.
   */
  readonly overHead?: () => Promise<R>;
}

const inTx = <T>(db: TenantDb, fn: (tx: TenantTx) => Promise<T>): Promise<T> => withWriteRetry(() => db.transaction().execute(fn));

const subjectOf = (kind: SignedChangeKind<unknown>, id: string): FiscalSubject => ({ type: kind.subjectType, id });

const withSubject = <S>(kind: SignedChangeKind<unknown>, p: PreparedChange<S>): SignEventInput => ({ ...p.input, subject: subjectOf(kind, p.subjectId) });

const prepareIn = <S>(tx: TenantTx, prepare: SignedChangeCall<unknown, S, unknown>['prepare']): Promise<PreparedChange<S>> =>
  typeof prepare === 'function' ? prepare(tx) : Promise.resolve(prepare.prepared);

/**
 * Runs one signed change (DESIGN 2, Fiscal). Without an active enrolment: 422 `fiscal_not_enrolled`,
 * nothing written. With a remote module: 422 `fiscal_refused` (the change undone), or 503
 * `fiscal_unreachable` or any other failure (the change kept with its pending entry, for recovery).
 */
export async function runSignedChange<F, S, R>(db: TenantDb, fiscal: SignedChangeFiscal, kind: SignedChangeKind<F>, call: SignedChangeCall<F, S, R>, now: Date): Promise<R> {
  const fdm = call.enrolment !== undefined ? call.enrolment : await activeFdmFor(db, call.locationId);
  if (call.overHead && !(isSigning(fdm) && fdm.mode === 'remote')) return call.overHead();
  if (!isSigning(fdm)) throw notEnrolledError();
  if (fdm.mode !== 'remote') {
    const { finished, state } = await inTx(db, async (tx) => {
      const prepared = await prepareIn(tx, call.prepare);
      const signed = await fiscal.signInTransaction(tx, withSubject(kind, prepared));
      return { finished: await kind.finish(tx, prepared.subjectId, signed, now), state: prepared.state };
    });
    return call.respond(finished, state);
  }
  // The reservation and its pending entry commit together: a second request (a duplicate settle)
  // never sees the reservation without its entry and never takes it for an interrupted one.
  const { prepared, reserved } = await inTx(db, async (tx) => {
    const p = await prepareIn(tx, call.prepare);
    return { prepared: p, reserved: await fiscal.reserveRemote(tx, withSubject(kind, p)) };
  });
  let signed: SignedFiscalEvent;
  try {
    signed = await fiscal.sendReserved(db, reserved);
  } catch (e) {
    // Only the module's refusal (recorded on the entry: it counted nothing) undoes the change. Anything
    // else (unreachable, or a failure after the module answered, such as the database going away while
    // its answer was written) keeps the reservation and its pending entry for recovery, which replays
    // the entry and finishes or undoes with the module's own answer. Undoing there let a retry sign the
    // same sale a second time while the module had already counted the first.
    if (e instanceof AppError && e.reason === 'fiscal_refused') await inTx(db, (tx) => kind.undo(tx, prepared.subjectId, null, now));
    throw keptBy(kind, e);
  }
  return call.respond(await inTx(db, (tx) => kind.finish(tx, prepared.subjectId, signed, now)), prepared.state);
}

/**
 * A change whose remote signing is still open (e.g. a settle retried while the order is SETTLING):
 * completes its pending entry and finishes the change (signed), or undoes it and throws 422
 * `fiscal_refused` (refused), or throws 503 `fiscal_unreachable` (still pending).
 */
export async function resumeSignedChange<F>(db: TenantDb, fiscal: Pick<FiscalService, 'completePending'>, kind: SignedChangeKind<F>, entry: JournalEntryState, subjectId: string, now: Date): Promise<F> {
  const outcome = await fiscal.completePending(db, entry.journal_id);
  switch (outcome.status) {
    case 'signed':
      return inTx(db, (tx) => kind.finish(tx, subjectId, outcome.signed, now));
    case 'failed':
      await inTx(db, (tx) => kind.undo(tx, subjectId, { journal_id: outcome.journal_id }, now));
      throw refusedError(outcome.error);
    case 'pending':
      throw unreachableError(outcome.cause, kind.kept);
  }
}

/** The 503 `fiscal_unreachable` of the fiscal service, in the words of `kind` (what it keeps). */
function keptBy(kind: SignedChangeKind<unknown>, e: unknown): unknown {
  if (!(e instanceof AppError && e.reason === 'fiscal_unreachable') || kind.kept === undefined) return e;
  return unreachableError(e.cause, kind.kept);
}

/** The latest journal entry of a change (e.g. to resume it), or null. */
export const findChangeEntry = (db: TenantDb, kind: SignedChangeKind<unknown>, subjectId: string): Promise<JournalEntryState | null> => findJournalEntry(db, subjectOf(kind, subjectId));

/** A signed entry whose change is not in the books: the module counted something nobody recorded. */
export const orphanSignature = (signed: SignedFiscalEvent, what: string): Error =>
  new Error(`Fiscal journal entry ${signed.journal_id} (${signed.subject?.type}) was signed, but ${what}`);

/** A kind whose journal entry is the whole record (X report prints, work events): nothing to finish or undo. */
export function journalOnlyKind(name: string, subjectType: string, kept?: string): SignedChangeKind<SignedFiscalEvent> {
  return {
    name,
    subjectType,
    ...(kept !== undefined ? { kept } : {}),
    finish: async (_tx, _id, signed) => signed,
    undo: async () => {},
  };
}

// The stored signature block is shared by every kind; it lives with the fiscal service.
export { storedSignature, type StoredSignature } from '../../fiscal/stored-signature.ts';
