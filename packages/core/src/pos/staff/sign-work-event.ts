import { enqueueOutbox, tenantSession, type TenantDb, type TenantTx } from '@pos/db';
import { AppError } from '@pos/kernel';
import { fiscalWorkEventJob, jobMessage } from '@pos/kernel/queues/index';
import { findChangeEntry, journalOnlyKind, runSignedChange, type SignedChangeFiscal } from '../signed-change/signed-change.ts';

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

/** What became of a queued work event. */
export type WorkEventOutcome = 'signed' | 'already_signed' | 'pending' | 'not_enrolled';

/**
 * Signs one work event (the worker's `fiscal.work-event`), once per session and kind: an entry that
 * is signed, or pending with a remote module (the recovery job completes it), is not signed again; a
 * refused one is signed again on the job's retry. A location without an active enrolment has nothing
 * to sign with. A refusal (422 `fiscal_refused`) or any other failure is thrown: the job fails and is
 * retried.
 */
export async function signWorkEvent(db: TenantDb, fiscal: SignedChangeFiscal, e: WorkEventInput, now: Date): Promise<WorkEventOutcome> {
  const subjectId = `${e.sessionId}:${e.kind}`;
  const entry = await findChangeEntry(db, workEventChange, subjectId);
  if (entry && entry.status !== 'failed') return 'already_signed';
  try {
    return await runSignedChange(
      db,
      fiscal,
      workEventChange,
      {
        locationId: e.locationId,
        prepare: {
          prepared: {
            subjectId,
            state: null,
            input: { locationId: e.locationId, deviceId: e.deviceId, employeeId: e.staffId, build: (common) => ({ ...common, kind: e.kind }) },
          },
        },
        respond: () => 'signed' as const,
      },
      now,
    );
  } catch (err) {
    if (err instanceof AppError && err.reason === 'fiscal_not_enrolled') return 'not_enrolled';
    if (err instanceof AppError && err.reason === 'fiscal_unreachable') return 'pending';
    throw err;
  }
}
