import { enqueueOutbox, tenantSession, withWriteRetry, type TenantDb, type TenantTx } from '@pos/db';
import { AppError } from '@pos/kernel';
import type { FiscalService, SignEventInput } from '../../fiscal/index.ts';
import { fiscalWorkEventJob, jobMessage } from '@pos/kernel/queues/index';
import { findChangeEntry, journalOnlyKind, resumeSignedChange, runSignedChange, type SignedChangeFiscal } from '../signed-change/signed-change.ts';

// Staff work-in (pin-login) and work-out (pin-logout, credential deletion) events, label S.
//
// The session change writes a `fiscal.work-event` job to the outbox in its own transaction
// (`queueWorkEvent`); the worker signs it (`signWorkEvent`) through the signed-change step. So a
// session never opens or ends without its event being queued, signing never slows or fails the
// PIN pad, and a signing failure fails the job (retried, visible in the queue) instead of being
// logged and forgotten.

/** Journal subject of the staff work-in / work-out events: `<session id>:<kind>`. */
export const WORK_EVENT_SUBJECT_TYPE = 'pos_staff_session';

/** Work events as a signed change: the journal entry is the whole record (nothing to finish or undo). */
export const workEventChange = journalOnlyKind('work_event', WORK_EVENT_SUBJECT_TYPE);

export interface WorkEventInput {
  readonly kind: 'work_in' | 'work_out';
  readonly staffId: string;
  readonly deviceId: string;
  readonly locationId: string;
  readonly sessionId: string;
}

/** The merchant schema of a tenant-bound instance (`bindTenant`), which the queued job names. */
export function tenantDatabaseOf(tdb: TenantDb): string {
  const session = tenantSession(tdb);
  if (!session) throw new Error('Work events are queued from a tenant-bound instance (bindTenant)');
  return session.schema;
}

/** Queues the event's signing in `tx`, the transaction that opens or ends the session (`tenantDatabase`: `tenantDatabaseOf`). */
export async function queueWorkEvent(tx: TenantTx | TenantDb, tenantDatabase: string, e: WorkEventInput): Promise<void> {
  await enqueueOutbox(
    tx,
    jobMessage(fiscalWorkEventJob, {
      tenant_database: tenantDatabase,
      kind: e.kind,
      session_id: e.sessionId,
      staff_id: e.staffId,
      device_id: e.deviceId,
      location_id: e.locationId,
    }),
  );
}

/** What signing a work event needs from the fiscal service (the whole FiscalService in production). */
export type WorkEventFiscal = SignedChangeFiscal & Pick<FiscalService, 'completePending'>;

/** What became of a queued work event. */
export type WorkEventOutcome = 'signed' | 'already_signed' | 'pending' | 'not_enrolled';

/** Found under the session's lock: this kind's entry is already written (another job signed it meanwhile). */
class AlreadyJournaled extends Error {}
/** Found under the session's lock: the work-in waits with the remote module, so the work-out must not be sent before it. */
class WorkInPending extends Error {}

/**
 * Signs one work event (the worker's `fiscal.work-event`), once per session and kind: an entry that
 * is signed, or pending with a remote module (the recovery job completes it), is not signed again; a
 * refused one is signed again on the job's retry. A location without an active enrolment has nothing
 * to sign with. A refusal (422 `fiscal_refused`) or any other failure is thrown: the job fails and is
 * retried.
 *
 * A session's work-in is always journaled (and sent) before its work-out, whatever order the two jobs
 * run or are retried in, in one worker or several: the work-out job signs the work-in first when it
 * is not signed yet, and both kinds check and write their entry under a row lock on the session. A
 * work-in still pending with the module (unreachable, or being sent by its own job) gets the work-out
 * reserved behind it, pending, for the recovery sweep, which sends a device's entries in seq order.
 */
export async function signWorkEvent(db: TenantDb, fiscal: WorkEventFiscal, e: WorkEventInput, now: Date): Promise<WorkEventOutcome> {
  const own = await findChangeEntry(db, workEventChange, subjectOf(e.sessionId, e.kind));
  if (own && own.status !== 'failed') return 'already_signed';
  if (e.kind === 'work_out') {
    // A refused work-in throws here: the work-out job fails and waits for it (retried).
    const first = await signOnce(db, fiscal, { ...e, kind: 'work_in' }, now);
    if (first === 'not_enrolled') return 'not_enrolled';
    await completePendingWorkIn(db, fiscal, e.sessionId, now);
  }
  return signOnce(db, fiscal, e, now);
}

/**
 * A work-in pending with the module (its own job sending it right now, or the module unreachable):
 * sent again (the same stored request, which the module does not count twice) so the work-out can
 * follow it. Still unreachable: left pending, the work-out is then reserved behind it.
 */
async function completePendingWorkIn(db: TenantDb, fiscal: WorkEventFiscal, sessionId: string, now: Date): Promise<void> {
  const subjectId = subjectOf(sessionId, 'work_in');
  const entry = await findChangeEntry(db, workEventChange, subjectId);
  if (entry?.status !== 'pending') return;
  try {
    await resumeSignedChange(db, fiscal, workEventChange, entry, subjectId, now);
  } catch (err) {
    if (!(err instanceof AppError && err.reason === 'fiscal_unreachable')) throw err;
  }
}

const subjectOf = (sessionId: string, kind: WorkEventInput['kind']) => `${sessionId}:${kind}`;

/**
 * The session's row lock: every check-and-write of its work events runs under it. Answers when the
 * event happened: the session's start for a work-in, its end for a work-out (undefined without one:
 * the event is then stamped with the signing time).
 */
async function lockSession(tx: TenantTx, sessionId: string, kind: WorkEventInput['kind']): Promise<Date | undefined> {
  const row = await tx.selectFrom('pos_staff_sessions').select(['created_at', 'ended_at']).where('id', '=', sessionId).forUpdate().executeTakeFirst();
  const at = kind === 'work_in' ? row?.created_at : row?.ended_at;
  return at ? new Date(at) : undefined;
}

/**
 * Under the session's lock: throws when this event must not be written now (already written; work-in
 * not signed yet); else answers when the event happened (`lockSession`).
 */
async function checkUnderLock(tx: TenantTx, e: WorkEventInput): Promise<Date | undefined> {
  const at = await lockSession(tx, e.sessionId, e.kind);
  const own = await findChangeEntry(tx, workEventChange, subjectOf(e.sessionId, e.kind));
  if (own && own.status !== 'failed') throw new AlreadyJournaled();
  if (e.kind !== 'work_out') return at;
  const workIn = await findChangeEntry(tx, workEventChange, subjectOf(e.sessionId, 'work_in'));
  if (workIn?.status === 'pending') throw new WorkInPending();
  // Signed just before by this job or by the work-in's; anything else (refused meanwhile) waits for the retry.
  if (workIn?.status !== 'signed') throw new Error(`Work-in of staff session ${e.sessionId} is not signed; the work-out waits for it`);
  return at;
}

/**
 * The event as signed. `at` is when it happened (the session's start or end), not when its job runs:
 * it is the event's `posDateTime` and its local date the `bookingDate`, closed or not (a business
 * day's Z does not keep staff from signing in or out; see docs/decisions.md).
 */
function eventInput(e: WorkEventInput, at: Date | undefined): Omit<SignEventInput, 'subject'> {
  return { locationId: e.locationId, deviceId: e.deviceId, employeeId: e.staffId, ...(at ? { at } : {}), build: (common) => ({ ...common, kind: e.kind }) };
}

async function signOnce(db: TenantDb, fiscal: SignedChangeFiscal, e: WorkEventInput, now: Date): Promise<WorkEventOutcome> {
  const subjectId = subjectOf(e.sessionId, e.kind);
  try {
    return await runSignedChange(
      db,
      fiscal,
      workEventChange,
      {
        locationId: e.locationId,
        prepare: async (tx) => {
          const at = await checkUnderLock(tx, e);
          return { subjectId, state: null, input: eventInput(e, at) };
        },
        respond: () => 'signed' as const,
      },
      now,
    );
  } catch (err) {
    if (err instanceof AlreadyJournaled) return 'already_signed';
    if (err instanceof WorkInPending) return reserveBehindWorkIn(db, fiscal, e);
    if (err instanceof AppError && err.reason === 'fiscal_not_enrolled') return 'not_enrolled';
    if (err instanceof AppError && err.reason === 'fiscal_unreachable') return 'pending';
    throw err;
  }
}

/** The work-out behind a pending work-in: journaled pending (higher seq), not sent; the recovery sweep sends both in order. */
async function reserveBehindWorkIn(db: TenantDb, fiscal: SignedChangeFiscal, e: WorkEventInput): Promise<WorkEventOutcome> {
  try {
    await withWriteRetry(() =>
      db.transaction().execute(async (tx) => {
        const at = await lockSession(tx, e.sessionId, e.kind);
        const own = await findChangeEntry(tx, workEventChange, subjectOf(e.sessionId, e.kind));
        if (own && own.status !== 'failed') throw new AlreadyJournaled();
        await fiscal.reserveRemote(tx, { ...eventInput(e, at), subject: { type: WORK_EVENT_SUBJECT_TYPE, id: subjectOf(e.sessionId, e.kind) } });
      }),
    );
  } catch (err) {
    if (err instanceof AlreadyJournaled) return 'already_signed';
    if (err instanceof AppError && err.reason === 'fiscal_not_enrolled') return 'not_enrolled';
    throw err;
  }
  return 'pending';
}
