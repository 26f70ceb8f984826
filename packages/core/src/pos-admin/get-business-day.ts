import { salesByTender, type TenderRow } from '@pos/domain/reports/sales-by-tender';
import type { Cents } from '@pos/domain/money';
import { loadReportInput } from '../reports/report-input.ts';
import { notFound, type PosAdminScope } from './pos-admin-scope.ts';
import { presentBusinessDay, type BusinessDaySummary } from './business-day-records.ts';
import { isUuid } from '@pos/domain/ids';

/**
 * The Z-report detail of one business day:
 * - the summary fields of the list, plus `location_id`;
 * - `z_report`: the Z report JSON exactly as the register stored it at close (decimal major units,
 *   `{report_number, turnover_z, user_z}`), or null while the day is open;
 * - `sales_by_tender`: the day's settled sales per tender row (`salesByTender`: Cash, Card, Meal
 *   voucher, Gift voucher, Unknown; a split sale per leg, a malformed one wholly under Unknown), in
 *   integer cents, gross of refunds;
 * - `refunds`: the day's refunds, `{count, amount}` in cents, `amount` being the cash handed back (all
 *   refunds are cash): the refunded lines' total less the cash rounding given back with them, as each
 *   refund's own `amount` answers it.
 */
export interface BusinessDayDetail extends BusinessDaySummary {
  location_id: string;
  z_report: unknown;
  sales_by_tender: TenderRow[];
  refunds: { count: number; amount: Cents };
}

/**
 * `GET /back-office/pos/{locationId}/business-days/{businessDayId}` (VIEW_POS_REPORTS). A day of
 * another location or merchant is 404 `business day`.
 */
export async function getBusinessDay(scope: PosAdminScope, locationId: string, id: string): Promise<BusinessDayDetail> {
  const row = isUuid(id) ? await scope.tdb.selectFrom('pos_business_days').selectAll().where('id', '=', id).where('location_id', '=', locationId).executeTakeFirst() : undefined;
  if (!row) throw notFound('business day');
  const date = String(row.business_date);
  const input = await loadReportInput(scope.tdb, { locationIds: [locationId], from: date, to: date });
  return {
    ...presentBusinessDay(row),
    location_id: row.location_id,
    z_report: row.z_report ?? null,
    sales_by_tender: salesByTender(input.sales),
    refunds: { count: input.refunds.length, amount: input.refunds.reduce((s, r) => s + r.amount - (r.rounding ?? 0), 0) },
  };
}
