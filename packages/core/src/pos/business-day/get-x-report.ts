import type { TenantDb } from '@pos/db';
import { xReport, type XReport } from '@pos/domain/reports/x-report';
import type { FiscalCommon, FiscalEvent } from '@pos/fiscal';
import { journalOnlyKind, runSignedChange, type SignedChangeFiscal } from '../signed-change/signed-change.ts';
import { businessDayClosed, businessDayId, reportingDay } from './business-day-queries.ts';
import { dayReportInput } from './day-report.ts';
import { reportTurnover, userReportTurnovers } from './report-turnover.ts';
import type { RegisterActor } from '../register-actor.ts';

/** Journal subject of an X report print (one id, two events: `<id>:turnover`, `<id>:user`). */
export const X_REPORT_SUBJECT_TYPE = 'pos_x_report';

/** X report prints as a signed change: the journal entry is the whole record (nothing to finish or undo). */
export const xReportChange = journalOnlyKind('x_report', X_REPORT_SUBJECT_TYPE, 'the report');

/**
 * `GET /pos/business-day/x-report`: `{turnover_x, user_x}` in DECIMAL MAJOR UNITS (domain
 * `xReport`) over the settled sales and refunds booked on the register's business day (the day
 * `GET /pos/business-day` shows, i.e. the one the next Z close closes). The day stays open.
 *
 * Every call is an X report print, and the fiscal data module counts each print: it is signed as
 * two report events (label R), `report_x_turnover` (the day's turnover) then `report_x_user` (per
 * employee), each journaled, with the cents turnover the module takes. Without an active fiscal
 * enrolment: 422 `fiscal_not_enrolled`. Nothing else is written. A remote module unreachable: 503
 * `fiscal_unreachable` ("... the report is kept and will be signed when it answers."), the entry
 * pending for the `fiscal.recover` sweep.
 */
export async function getXReport(db: TenantDb, fiscal: SignedChangeFiscal, actor: RegisterActor, now: Date): Promise<XReport> {
  const day = await reportingDay(db, actor.locationId, now);
  // Every X print is a fiscal event of the day's booking period: none after its Z (409, as sales are).
  if (day.row?.status === 'closed') throw businessDayClosed(day.date);
  const input = await dayReportInput(db, actor.locationId, day.date);
  const booking = { id: day.row?.id ?? businessDayId(actor.locationId, day.date), date: day.date };
  const printId = Bun.randomUUIDv7();
  const sign = (part: 'turnover' | 'user', build: (c: FiscalCommon) => FiscalEvent) =>
    runSignedChange(
      db,
      fiscal,
      xReportChange,
      {
        locationId: actor.locationId,
        prepare: {
          prepared: {
            subjectId: `${printId}:${part}`,
            state: null,
            input: { locationId: actor.locationId, deviceId: actor.deviceId, employeeId: actor.staffId, businessDay: booking, build },
          },
        },
        respond: () => undefined,
      },
      now,
    );
  await sign('turnover', (c) => ({ ...c, kind: 'report_x_turnover', turnover: reportTurnover(input) }));
  await sign('user', (c) => ({ ...c, kind: 'report_x_user', users: userReportTurnovers(input) }));
  return xReport(input);
}
