import type { Selectable } from 'kysely';
import type { TenantDb, TenantTables, TenantTx } from '@pos/db';
import { errors } from '@pos/kernel';
import { dayBounds } from '@pos/domain/business-day/business-day';
import { zReport, type ZReport } from '@pos/domain/reports/x-report';
import type { FiscalCommon } from '@pos/fiscal';
import type { StaffAuthorizer } from '../staff/approvals.ts';
import { activeFdmFor, findJournalEntry } from '../../fiscal/index.ts';
import { findChangeEntry, orphanSignature, resumeSignedChange, runSignedChange, storedSignature, type ResumableSignedChangeFiscal, type SignedChangeKind } from '../signed-change/signed-change.ts';
import { toTillResource } from '../tills/till-queries.ts';
import { ensureBusinessDay, locationTimeZone, reportingDay } from './business-day-queries.ts';
import { dayReportInput, unclosedTills } from './day-report.ts';
import { businessDayResource, type BusinessDayResource } from './get-business-day.ts';
import { reportTurnover } from './report-turnover.ts';
import type { RegisterActor } from '../register-actor.ts';

export const ALREADY_CLOSED_MESSAGE = 'This business day is already closed: the next one starts at local midnight.';
export const OPEN_TILLS_MESSAGE = 'Tills of this business day are not closed yet: end, count and close them before the Z close.';
export const FISCAL_PENDING_MESSAGE = 'Events of this business day are still waiting for the fiscal data module: try the close again once they are signed.';
export const SALES_IN_FLIGHT_MESSAGE = 'Sales of this business day are still waiting for the fiscal data module: try the close again once they are settled.';

/** Journal subject of a Z close: the business day. */
export const Z_REPORT_SUBJECT_TYPE = 'pos_business_day';

/** What `pos_business_days.z_report` holds and the close returns: the Z report (major units) and its signature. */
export interface StoredZReport extends ZReport {
  readonly business_date: string;
  readonly fiscal?: { digital_signature: string; fdm_id: string; journal_id: string; journal_seq: number; fdm_ref: unknown };
}

export type BusinessDayCloseResponse = BusinessDayResource & { z_report: StoredZReport };

const parseJson = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));

type DayRow = Selectable<TenantTables['pos_business_days']>;

/**
 * Z closes as a signed change: the closed day with its unsigned report is the reservation; a signature
 * adds the report's `fiscal` block and the day's `journal_id`, a refusal reopens the day. A day can be
 * closed again after a refused close was undone (same subject, a new entry), so a late refusal only
 * reopens the day while its entry is still the day's latest, and a signature must be the Z the day
 * holds (same number).
 */
export const zReportChange: SignedChangeKind<{ row: DayRow; z_report: StoredZReport }> = {
  name: 'z_report',
  subjectType: Z_REPORT_SUBJECT_TYPE,
  kept: 'the Z report',
  async finish(tx, dayId, signed) {
    const day = await tx.selectFrom('pos_business_days').selectAll().where('id', '=', dayId).forUpdate().executeTakeFirst();
    if (!day) throw orphanSignature(signed, `business day ${dayId} does not exist`);
    const stored = parseJson<StoredZReport | null>(day.z_report);
    if (day.journal_id === signed.journal_id && stored) return { row: day, z_report: stored }; // already recorded
    const reportNo = signed.event.kind === 'report_z' ? signed.event.reportNo : null;
    if (day.status !== 'closed' || day.journal_id !== null || stored === null || day.z_report_no !== reportNo) {
      throw orphanSignature(signed, `business day ${dayId} does not hold that Z report (status ${day.status}, Z ${day.z_report_no ?? 'none'}, journal ${day.journal_id ?? 'none'})`);
    }
    const { fiscal: _unsigned, ...report } = stored;
    const sig = storedSignature(signed);
    const z_report: StoredZReport = {
      ...report,
      fiscal: { digital_signature: sig.digital_signature, fdm_id: sig.fdm_id, journal_id: sig.journal_id, journal_seq: sig.journal_seq, fdm_ref: sig.fdm_ref },
    };
    const row = await tx
      .updateTable('pos_business_days')
      .set({ z_report: JSON.stringify(z_report), journal_id: signed.journal_id })
      .where('id', '=', dayId)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { row, z_report };
  },
  async undo(tx, dayId, refusal) {
    const day = await tx.selectFrom('pos_business_days').select(['id', 'status', 'journal_id']).where('id', '=', dayId).forUpdate().executeTakeFirst();
    if (!day || day.status !== 'closed' || day.journal_id !== null) return; // reopened already, or signed
    if (refusal) {
      const latest = await findJournalEntry(tx, { type: Z_REPORT_SUBJECT_TYPE, id: dayId });
      if (latest?.journal_id !== refusal.journal_id) return; // a later close owns the day now
    }
    await tx
      .updateTable('pos_business_days')
      .set({ status: 'open', closed_at: null, closed_by: null, z_report_no: null, z_report: null })
      .where('id', '=', dayId)
      .execute();
  },
  async unfinished(db, olderThan, limit) {
    return (await db.selectFrom('pos_business_days').select('id').where('status', '=', 'closed').where('journal_id', 'is', null).where('closed_at', '<=', olderThan).orderBy('closed_at').limit(limit).execute()).map((r) => r.id);
  },
};

/** The refusals a close checks (before asking for the permission, and again under the locks). */
async function closeRefusal(tx: TenantDb, locationId: string, date: string, timeZone: string, status: 'open' | 'closed' | undefined) {
  if (status === 'closed') return errors.conflict(ALREADY_CLOSED_MESSAGE, { reason: 'already_closed', extra: { business_date: date } });
  const tills = await unclosedTills(tx, locationId, dayBounds(date, timeZone).end);
  if (tills.length) {
    const names = new Map((await tx.selectFrom('staff_credentials').select(['id', 'name']).where('id', 'in', tills.map((t) => t.staff_id)).execute()).map((s) => [s.id, s.name]));
    return errors.conflict(OPEN_TILLS_MESSAGE, { reason: 'open_tills', extra: { tills: tills.map((t) => toTillResource(t, names.get(t.staff_id) ?? null)) } });
  }
  const settling = await tx.selectFrom('pos_orders').select('id').where('location_id', '=', locationId).where('state', '=', 'SETTLING').limit(1).execute();
  if (settling.length) return errors.conflict(SALES_IN_FLIGHT_MESSAGE, { reason: 'sales_in_flight' });
  // A movement, refund or report still waiting for a remote module could yet be refused and undone,
  // which would change totals the Z had already signed: close only once the journal is complete.
  const pending = await tx.selectFrom('fiscal_journal').select('id').where('location_id', '=', locationId).where('status', '=', 'pending').limit(1).execute();
  if (pending.length) return errors.conflict(FISCAL_PENDING_MESSAGE, { reason: 'fiscal_pending' });
  return null;
}

/**
 * A close retried while the location's latest Z waits for its remote module (the day closed with its
 * unsigned report, `journal_id` null: the first request answered 503 `fiscal_unreachable`): that Z is
 * resumed (`resumeSignedChange`) and answered as the first request would have been, or null when
 * there is none. The close names no day (the register's business day), so any close while that Z is
 * open is its retry: no other day can be closed while its entry is pending anyway (`fiscal_pending`).
 *
 * The permission is not asked again of the register that made the close: its approval token was spent
 * on it (single use), so the retry of the same request would be a 403 and the register would never get
 * its Z report. Resuming writes nothing new (it completes what the `fiscal.recover` sweep would). Another
 * register needs `close_business_day` as for a close; an approval it spent on it is given back (it
 * approved no action of its own).
 */
async function resumeUnsignedZ(db: TenantDb, fiscal: ResumableSignedChangeFiscal, actor: RegisterActor, authorizer: StaffAuthorizer, now: Date): Promise<BusinessDayCloseResponse | null> {
  const day = await db
    .selectFrom('pos_business_days')
    .selectAll()
    .where('location_id', '=', actor.locationId)
    .where('status', '=', 'closed')
    .orderBy('z_report_no', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!day || day.journal_id !== null) return null;
  const entry = await findChangeEntry(db, zReportChange, day.id);
  if (!entry) return null;
  const made = await db.selectFrom('fiscal_journal').select('payload').where('id', '=', entry.journal_id).executeTakeFirstOrThrow();
  const sameRegister = (JSON.parse(made.payload) as { posId?: unknown }).posId === actor.deviceId;
  if (!sameRegister) await authorizer.require('close_business_day');
  try {
    const { row, z_report } = await resumeSignedChange(db, fiscal, zReportChange, entry, day.id, now);
    return { ...(await businessDayResource(db, actor.locationId, row.business_date, await locationTimeZone(db, actor.locationId), row)), z_report };
  } finally {
    if (!sameRegister) await authorizer.giveBack();
  }
}

/**
 * `POST /pos/business-day/close` (permission `close_business_day`), body `{approval_token?}`: the
 * Z close of the register's business day (the location's oldest day still open up to today, else
 * today's, as `GET /pos/business-day` shows; the day row is created here if the date had no
 * booking).
 *
 * Refused with 409:
 * - `already_closed`: that day's Z is done (a second close of the same day);
 * - `open_tills` (with `tills`, bare till resources): a till opened before the end of the day is not
 *   closed yet. Cash accountability comes first: every till is ended, counted and closed before
 *   the day closes; nothing is carried over silently;
 * - `sales_in_flight`: a sale of the location is SETTLING with a remote fiscal module;
 * - `fiscal_pending`: another signed event of the location still waits for a remote module.
 * These are checked before the permission is asked, so no manager is called for a close that
 * cannot happen; 403 without `close_business_day` (escalate and retry with `approval_token`).
 *
 * In one transaction (closes of a location serialised on its row; the day row held FOR UPDATE, so
 * sales and refunds in flight finish first and are counted): the Z number is the location's last
 * + 1 (1, 2, 3...; unique per location), the Z report (domain `zReport`, decimal major units) is
 * computed over the day's settled sales and refunds, signed as a `report_z` event (label R;
 * `reportNo`, `reportBookingDate`, the location's registers and fiscal module, cents turnover) and
 * stored with its signature on the day, which becomes `closed`. From then on, sales, refunds, till
 * movements and till openings of that date are refused with 409 `business_day_closed`; the next
 * business day starts at local midnight.
 *
 * With a remote module, a close while the latest Z still waits for it (the first close answered 503
 * `fiscal_unreachable`) is that close's retry: `resumeUnsignedZ`. A Z already signed is 409
 * `already_closed` as before.
 */
export async function closeBusinessDay(db: TenantDb, fiscal: ResumableSignedChangeFiscal, actor: RegisterActor, authorizer: StaffAuthorizer, now: Date): Promise<BusinessDayCloseResponse> {
  const resumed = await resumeUnsignedZ(db, fiscal, actor, authorizer, now);
  if (resumed) return resumed;
  const early = await reportingDay(db, actor.locationId, now);
  const refused = await closeRefusal(db, actor.locationId, early.date, early.timeZone, early.row?.status);
  if (refused) throw refused;
  await authorizer.require('close_business_day');

  return runSignedChange(db, fiscal, zReportChange, {
    locationId: actor.locationId,
    async prepare(tx: TenantTx) {
      await tx.selectFrom('locations').select('id').where('id', '=', actor.locationId).forNoKeyUpdate().execute();
      const { date, timeZone } = await reportingDay(tx, actor.locationId, now);
      const day = await ensureBusinessDay(tx, actor.locationId, date, now, { lock: 'update' });
      const refusal = await closeRefusal(tx, actor.locationId, date, timeZone, day.status);
      if (refusal) throw refusal;
      const last = await tx
        .selectFrom('pos_business_days')
        .select((eb) => eb.fn.max('z_report_no').as('n'))
        .where('location_id', '=', actor.locationId)
        .executeTakeFirst();
      const reportNo = Number(last?.n ?? 0) + 1;
      const input = await dayReportInput(tx, actor.locationId, date);
      const report: StoredZReport = { ...zReport({ ...input, report_number: reportNo }), business_date: date };
      const posDevices = (await tx.selectFrom('devices').select('id').where('location_id', '=', actor.locationId).where('type', '=', 'pos').where('deleted_at', 'is', null).orderBy('id').execute()).map((d) => d.id);
      const fdm = await activeFdmFor(tx, actor.locationId);
      const turnover = reportTurnover(input);
      await tx
        .updateTable('pos_business_days')
        .set({ status: 'closed', closed_at: now, closed_by: actor.staffId, z_report_no: reportNo, z_report: JSON.stringify(report) })
        .where('id', '=', day.id)
        .execute();
      return {
        subjectId: day.id,
        state: { date, timeZone },
        input: {
          locationId: actor.locationId,
          deviceId: actor.deviceId,
          employeeId: actor.staffId,
          businessDay: { id: day.id, date },
          build: (common: FiscalCommon) => ({
            ...common,
            kind: 'report_z' as const,
            reportNo,
            reportBookingDate: date,
            posDevices,
            fdmDevices: fdm ? [fdm.fdm_id] : [],
            turnover,
          }),
        },
      };
    },
    respond: async ({ row, z_report }, state) => ({ ...(await businessDayResource(db, actor.locationId, state.date, state.timeZone, row)), z_report }),
  }, now);
}
