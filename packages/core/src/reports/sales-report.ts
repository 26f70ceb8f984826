import type { TenantDb } from '@pos/db';
import type { VatRateTotal } from '@pos/domain/orders/order-totals';
import type { TenderRow } from '@pos/domain/reports/sales-by-tender';
import type { Access } from '../auth/access.ts';
import { turnoverOfWindow } from './report-input.ts';
import { channelRows, mergeVatRates, totalsOf, type ChannelRow, type SalesTotals } from '@pos/domain/reports/sales-channels';
import { loadChannelSales } from './channel-sales.ts';
import { resolveReportScope, type ReportQuery } from './report-window.ts';

export type SalesReportInput = ReportQuery;

/**
 * `GET /back-office/reports/sales` (VIEW_SALES_REPORTS). Money in integer cents.
 * - `location_ids`: the locations counted, sorted (the request's `location_id`, or every location the
 *   caller may report on);
 * - `totals`: every channel together: `sales_count`, `refunds_count`, `gross` (what the goods sold
 *   for, discounts taken off, tips and fees left out), `refunds` (the refunded goods' turnover, a positive
 *   magnitude: a register refund's lines; the cash it handed back differs by the sale's cash rounding,
 *   which the Z detail's `refunds.amount` counts), `net` = gross - refunds, `tips`, `fees` (a marketplace's delivery fee);
 * - `by_channel`: the same figures per channel, always all of `SALES_CHANNELS` in that order
 *   (`register`, `kiosk`, `online_ordering`, `table_qr`, `delivery`); they add up to `totals`. The
 *   register counts settled sales and refunds by fiscal business date (so its row agrees with the Z
 *   reports); the other channels count `Complete` transactions outside test mode by the local date
 *   they completed on;
 * - `by_tender`: the register's sales only, the five rows of `salesByTender` (Cash, Card, Meal voucher,
 *   Gift voucher, Unknown, always all five, in that order), a split sale counted per leg, a malformed
 *   sale's whole total under Unknown, and refunds taken off the Cash row (refunds hand back cash):
 *   exactly the rows of the X and Z reports, in cents; `count` counts sale legs (Unknown: sales). The
 *   amounts add up to the register row's `net`;
 * - `by_vat_rate`: `[{rate, net, vat, gross}]`, rate descending, every channel, sales minus refunds,
 *   from each sale's own VAT groups.
 */
export interface SalesReport {
  from: string;
  to: string;
  location_ids: string[];
  totals: SalesTotals;
  by_channel: ChannelRow[];
  by_tender: TenderRow[];
  by_vat_rate: VatRateTotal[];
}

export interface SalesReportScope {
  readonly tdb: TenantDb;
  readonly access: Access;
}

/** The sales report over the register's settled sales and refunds and the other channels' completed transactions. */
export async function salesReport(scope: SalesReportScope, input: SalesReportInput): Promise<SalesReport> {
  const w = await resolveReportScope(scope.tdb, scope.access, input);
  const [register, channels] = await Promise.all([turnoverOfWindow(scope.tdb, { locationIds: w.locationIds, from: w.from, to: w.to }), loadChannelSales(scope.tdb, w)]);
  const by_channel = channelRows({ register: { sales_count: register.sales_count, refunds_count: register.refunds_count, gross: register.gross, refunds: register.refunds, tips: 0, fees: 0 }, ...channels.byChannel });
  return {
    from: w.from,
    to: w.to,
    location_ids: [...w.locationIds],
    totals: totalsOf(by_channel),
    by_channel,
    by_tender: [...register.by_tender],
    by_vat_rate: mergeVatRates(register.by_vat_rate, channels.byVatRate),
  };
}
