import { withWriteRetry, type TenantDb, type TenantTx } from '@pos/db';
import type { Clock } from '@pos/kernel';
import { findJournalEntry, type FiscalSubject, type RecoveryHooks, type SignedFiscalEvent } from '../../fiscal/index.ts';
import { recordZSignature, reopenBusinessDay, Z_REPORT_SUBJECT_TYPE, type StoredZReport } from '../business-day/close-business-day.ts';
import { X_REPORT_SUBJECT_TYPE } from '../business-day/get-x-report.ts';
import { SALE_SUBJECT_TYPE, settleRecoveryHooks } from '../orders/settle-order.ts';
import { recordRefundSignature, REFUND_SUBJECT_TYPE, removeRefund } from '../refunds/refund-sale.ts';
import { MOVEMENT_SUBJECT_TYPE, recordMovementSignature, removeMovement } from '../tills/record-till-movement.ts';

// Finishing the register changes a remote fiscal module signed (or refused) late.
//
// With a remote module, a signed register change commits first with a pending journal entry, then
// the module is called (tills/signed-change.ts). When the module is unreachable the change stays as
// it was committed (a movement without journal id, a refund without `fiscal`, a closed day whose Z
// report has no `fiscal`) and the recovery job (`recoverPendingEntries`) re-sends the entry later.
// These hooks then do what the synchronous path would have done with the answer:
// - signed: record the signature on the change, with the very writes of the use case's `finish`;
// - refused (the module counted nothing): undo the change, with the very writes of its `undo`.
// Each hook locks its record and looks at what is already written, so running it twice (or beside
// the synchronous path) changes nothing the second time.

/** Journal subject of the staff work-in / work-out events (staff/sign-work-event.ts). */
export const WORK_EVENT_SUBJECT_TYPE = 'pos_staff_session';

const parseJson = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));

const tx = <T>(tdb: TenantDb, fn: (tx: TenantTx) => Promise<T>): Promise<T> => withWriteRetry(() => tdb.transaction().execute(fn));

/** A signed entry whose change is not in the books: the module counted something nobody recorded. */
const orphanSignature = (signed: SignedFiscalEvent, what: string): Error =>
  new Error(`Fiscal journal entry ${signed.journal_id} (${signed.subject?.type}) was signed, but ${what}`);

/** Till movements (`pos_till_movements.journal_id`). */
export const movementRecoveryHooks: RecoveryHooks = {
  async onSigned(tdb, signed) {
    const id = signed.subject!.id;
    await tx(tdb, async (t) => {
      const row = await t.selectFrom('pos_till_movements').select(['id', 'journal_id']).where('id', '=', id).forUpdate().executeTakeFirst();
      if (!row) throw orphanSignature(signed, `till movement ${id} does not exist`);
      if (row.journal_id !== null) return; // already recorded
      await recordMovementSignature(t, id, signed);
    });
  },
  async onFailed(tdb, failed) {
    const id = failed.subject!.id;
    await tx(tdb, async (t) => {
      const row = await t.selectFrom('pos_till_movements').select(['id', 'journal_id']).where('id', '=', id).forUpdate().executeTakeFirst();
      if (!row || row.journal_id !== null) return; // already removed, or signed by another entry
      await removeMovement(t, id);
    });
  },
};

/** Refunds (`pos_refunds.fiscal`; a refused refund goes with its lines, so they can be refunded again). */
export const refundRecoveryHooks: RecoveryHooks = {
  async onSigned(tdb, signed) {
    const id = signed.subject!.id;
    await tx(tdb, async (t) => {
      const row = await t.selectFrom('pos_refunds').select(['id', 'fiscal']).where('id', '=', id).forUpdate().executeTakeFirst();
      if (!row) throw orphanSignature(signed, `refund ${id} does not exist`);
      if (row.fiscal !== null) return;
      await recordRefundSignature(t, id, signed);
    });
  },
  async onFailed(tdb, failed) {
    const id = failed.subject!.id;
    await tx(tdb, async (t) => {
      const row = await t.selectFrom('pos_refunds').select(['id', 'fiscal']).where('id', '=', id).forUpdate().executeTakeFirst();
      if (!row || row.fiscal !== null) return;
      await removeRefund(t, id);
    });
  },
};

/**
 * Z closes (`pos_business_days.z_report.fiscal` and `journal_id`). A day can be closed again after
 * a refused close was undone (same subject, a new entry), so a refusal only reopens the day while
 * its entry is still the day's latest, and a signature must be the Z the day holds (same number).
 */
export const zReportRecoveryHooks: RecoveryHooks = {
  async onSigned(tdb, signed) {
    const id = signed.subject!.id;
    await tx(tdb, async (t) => {
      const day = await t.selectFrom('pos_business_days').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
      if (!day) throw orphanSignature(signed, `business day ${id} does not exist`);
      if (day.journal_id === signed.journal_id) return; // already recorded
      const reportNo = signed.event.kind === 'report_z' ? signed.event.reportNo : null;
      if (day.status !== 'closed' || day.journal_id !== null || day.z_report === null || day.z_report_no !== reportNo) {
        throw orphanSignature(signed, `business day ${id} does not hold that Z report (status ${day.status}, Z ${day.z_report_no ?? 'none'}, journal ${day.journal_id ?? 'none'})`);
      }
      const { fiscal: _unsigned, ...report } = parseJson<StoredZReport>(day.z_report);
      await recordZSignature(t, id, report, signed);
    });
  },
  async onFailed(tdb, failed) {
    const id = failed.subject!.id;
    await tx(tdb, async (t) => {
      const day = await t.selectFrom('pos_business_days').select(['id', 'status', 'journal_id']).where('id', '=', id).forUpdate().executeTakeFirst();
      if (!day || day.status !== 'closed' || day.journal_id !== null) return; // reopened already, or signed
      const latest = await findJournalEntry(t, failed.subject!);
      if (latest?.journal_id !== failed.journal_id) return; // a later close owns the day now
      await reopenBusinessDay(t, id);
    });
  },
};

/** Subjects that need nothing once recovered: the journal entry is the whole record. */
const NOTHING_TO_DO: RecoveryHooks = {};

/**
 * The recovery hooks of the register (`recoverPendingEntries`, the worker's `fiscal.recover` job),
 * by journal subject type: sales (orders SETTLING -> SETTLED or back to OPEN, `settleRecoveryHooks`),
 * till movements, refunds and Z closes. X report prints and staff work events need nothing; other
 * subjects are left alone. Every hook is idempotent.
 */
export function registerRecoveryHooks(clock: Pick<Clock, 'now'>): RecoveryHooks {
  const bySubject = new Map<string, RecoveryHooks>([
    [SALE_SUBJECT_TYPE, settleRecoveryHooks(clock)],
    [MOVEMENT_SUBJECT_TYPE, movementRecoveryHooks],
    [REFUND_SUBJECT_TYPE, refundRecoveryHooks],
    [Z_REPORT_SUBJECT_TYPE, zReportRecoveryHooks],
    [X_REPORT_SUBJECT_TYPE, NOTHING_TO_DO],
    [WORK_EVENT_SUBJECT_TYPE, NOTHING_TO_DO],
  ]);
  const hooksOf = (subject: FiscalSubject | null): RecoveryHooks | undefined => (subject ? bySubject.get(subject.type) : undefined);
  return {
    async onSigned(tdb, signed) {
      await hooksOf(signed.subject)?.onSigned?.(tdb, signed);
    },
    async onFailed(tdb, failed) {
      await hooksOf(failed.subject)?.onFailed?.(tdb, failed);
    },
  };
}
