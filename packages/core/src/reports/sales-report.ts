import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import type { Cents } from '@pos/domain/money';
import type { VatRateTotal } from '@pos/domain/orders/order-totals';
import type { TenderRow } from '@pos/domain/reports/sales-by-tender';
import { turnoverCents } from '@pos/domain/reports/x-report';
import { isBusinessDate } from '@pos/domain/business-day/business-day';
import type { Access } from '../auth/access.ts';
import { loadReportInput } from './report-input.ts';
import { reportableLocations } from './reportable-locations.ts';
import { isUuid } from '@pos/domain/ids';

/** Longest range one sales report covers, in days (inclusive). */
export const MAX_REPORT_DAYS = 366;

export interface SalesReportInput {
  /** `YYYY-MM-DD`, first business date, inclusive. */
  from: string;
  /** `YYYY-MM-DD`, last business date, inclusive. */
  to: string;
  /** Narrows the report to one location of the caller's grant. */
  location_id?: string;
}

/**
 * `GET /back-office/reports/sales` (VIEW_SALES_REPORTS). Money in integer cents.
 * - `location_ids`: the locations counted, sorted (the request's `location_id`, or every location the
 *   caller may report on);
 * - `totals`: `sales_count` (settled sales), `refunds_count`, `gross` (sum of sale totals), `refunds`
 *   (cash handed back, a positive magnitude), `net` = gross - refunds;
 * - `by_tender`: the five rows of `salesByTender` (Cash, Card, Meal voucher, Gift voucher, Unknown,
 *   always all five, in that order), a split sale counted per leg, a malformed sale's whole total under
 *   Unknown, and refunds taken off the Cash row (refunds hand back cash): exactly the rows of the X
 *   and Z reports, in cents; `count` counts sale legs (Unknown: sales). The amounts add up to `net`.
 * - `by_vat_rate`: `[{rate, net, vat, gross}]`, rate descending, sales minus refunds, from each
 *   ticket's own signed VAT groups.
 */
export interface SalesReport {
  from: string;
  to: string;
  location_ids: string[];
  totals: { sales_count: number; refunds_count: number; gross: Cents; refunds: Cents; net: Cents };
  by_tender: TenderRow[];
  by_vat_rate: VatRateTotal[];
}

export interface SalesReportScope {
  readonly tdb: TenantDb;
  readonly access: Access;
}

function dayCount(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1;
}

/**
 * The sales report over settled register sales and refunds, by fiscal business date. The locations
 * are the bound merchant's intersected with the caller's grant; `location_id` narrows them: a
 * location of another merchant (or no location) is 404, one outside the grant 403.
 */
export async function salesReport(scope: SalesReportScope, input: SalesReportInput): Promise<SalesReport> {
  if (!isBusinessDate(input.from)) throw errors.field('from', 'The from field must be a valid date (YYYY-MM-DD).');
  if (!isBusinessDate(input.to)) throw errors.field('to', 'The to field must be a valid date (YYYY-MM-DD).');
  if (input.to < input.from) throw errors.field('to', 'The to field must be a date after or equal to from.');
  if (dayCount(input.from, input.to) > MAX_REPORT_DAYS) throw errors.field('to', `A report covers at most ${MAX_REPORT_DAYS} days.`);
  let locationIds = (await reportableLocations(scope.tdb, scope.access)).map((l) => l.id);
  if (input.location_id !== undefined) {
    const wanted = input.location_id;
    if (!locationIds.includes(wanted)) {
      const exists = isUuid(wanted) && (await scope.tdb.selectFrom('locations').select('id').where('id', '=', wanted).executeTakeFirst());
      if (!exists) throw errors.notFound('location');
      throw errors.insufficientPermissions();
    }
    locationIds = [wanted];
  }
  locationIds.sort();
  const t = turnoverCents(await loadReportInput(scope.tdb, { locationIds, from: input.from, to: input.to }));
  return {
    from: input.from,
    to: input.to,
    location_ids: locationIds,
    totals: { sales_count: t.sales_count, refunds_count: t.refunds_count, gross: t.gross, refunds: t.refunds, net: t.net },
    by_tender: [...t.by_tender],
    by_vat_rate: [...t.by_vat_rate],
  };
}

