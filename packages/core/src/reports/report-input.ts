import { sql } from 'kysely';
import { pagedQuery, readInPages, type TenantDb } from '@pos/db';
import type { VatRateTotal } from '@pos/domain/orders/order-totals';
import { TurnoverTally, type ReportInput, type ReportRefund, type ReportSale, type TurnoverCents } from '@pos/domain/reports/x-report';

/**
 * The settled register sales and refunds of some locations over an inclusive range of business
 * dates, as the pure report functions of @pos/domain read them (`turnoverCents`, `salesByTender`,
 * the X/Z reports). A sale is a `pos_transactions` row (written once, when an order settles) with its
 * order's VAT groups; a refund is a `pos_refunds` row. Both are dated by their fiscal business date,
 * so a report over dates agrees with the Z reports of those dates.
 */
export interface ReportWindow {
  readonly locationIds: readonly string[];
  /** `YYYY-MM-DD`, inclusive. */
  readonly from: string;
  /** `YYYY-MM-DD`, inclusive. */
  readonly to: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCents = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v);

/** Stored VAT groups, read defensively: entries that are not `{rate, net, vat, gross}` numbers are skipped. */
export function vatGroupsOf(raw: unknown): VatRateTotal[] {
  let v = raw;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v) as unknown;
    } catch {
      return [];
    }
  }
  if (!Array.isArray(v)) return [];
  return v.filter((g): g is VatRateTotal => isObject(g) && typeof g.rate === 'number' && isCents(g.net) && isCents(g.vat) && isCents(g.gross)).map((g) => ({ rate: g.rate, net: g.net, vat: g.vat, gross: g.gross }));
}

export async function loadReportInput(tdb: TenantDb, w: ReportWindow): Promise<ReportInput> {
  if (w.locationIds.length === 0) return { sales: [], refunds: [] };
  const ids = [...w.locationIds];
  const [sales, refunds] = await Promise.all([
    tdb
      .selectFrom('pos_transactions')
      .innerJoin('pos_orders', 'pos_orders.id', 'pos_transactions.order_id')
      .select(['pos_transactions.total', 'pos_transactions.tender', 'pos_transactions.staff_id', 'pos_orders.totals'])
      .where('pos_transactions.location_id', 'in', ids)
      .where('pos_transactions.business_date', '>=', w.from)
      .where('pos_transactions.business_date', '<=', w.to)
      .orderBy('pos_transactions.created_at')
      .orderBy('pos_transactions.id')
      .execute(),
    tdb
      .selectFrom('pos_refunds')
      .select(['amount', 'rounding', 'by_vat_rate', 'staff_id'])
      .where('location_id', 'in', ids)
      .where('business_date', '>=', w.from)
      .where('business_date', '<=', w.to)
      .orderBy('created_at')
      .orderBy('id')
      .execute(),
  ]);
  return {
    sales: sales.map(
      (s): ReportSale => ({
        total: Number(s.total),
        tender: s.tender,
        by_vat_rate: vatGroupsOf(isObject(s.totals) ? s.totals.by_vat_rate : undefined),
        staff_id: s.staff_id ?? '',
      }),
    ),
    refunds: refunds.map((r): ReportRefund => ({ amount: Number(r.amount), rounding: Number(r.rounding), by_vat_rate: vatGroupsOf(r.by_vat_rate), staff_id: r.staff_id })),
  };
}

/** Rows read per page by `turnoverOfWindow`. */
export const REPORT_PAGE_ROWS = 5_000;

/**
 * The register's turnover (`turnoverCents`) over a window of any length: its sales and refunds read
 * through a cursor a page at a time (`readInPages`) and added to one `TurnoverTally`. Loading a year of
 * a busy merchant's sales (500k) held every row in the API at once (824 MB of process at 500k) and
 * blocked its event loop while they were turned into objects. Only what the tally reads is fetched:
 * the sale's total and tender and its order's VAT groups, not the order's whole totals document.
 */
export async function turnoverOfWindow(tdb: TenantDb, w: ReportWindow, pageRows = REPORT_PAGE_ROWS): Promise<TurnoverCents> {
  const tally = new TurnoverTally();
  if (w.locationIds.length === 0) return tally.result();
  const ids = [...w.locationIds];
  const sales = tdb
    .selectFrom('pos_transactions')
    .innerJoin('pos_orders', 'pos_orders.id', 'pos_transactions.order_id')
    .select(['pos_transactions.total', 'pos_transactions.tender', sql<unknown>`pos_orders.totals->'by_vat_rate'`.as('by_vat_rate')])
    .where('pos_transactions.location_id', 'in', ids)
    .where('pos_transactions.business_date', '>=', w.from)
    .where('pos_transactions.business_date', '<=', w.to);
  const refunds = tdb
    .selectFrom('pos_refunds')
    .select(['amount', 'by_vat_rate'])
    .where('location_id', 'in', ids)
    .where('business_date', '>=', w.from)
    .where('business_date', '<=', w.to);
  // One transaction for both reads: the sales and refunds of one snapshot.
  await readInPages(tdb, pageRows, [
    pagedQuery(sales, (rows) => rows.forEach((s) => tally.addSale({ total: Number(s.total), tender: s.tender, by_vat_rate: vatGroupsOf(s.by_vat_rate), staff_id: '' }))),
    pagedQuery(refunds, (rows) => rows.forEach((r) => tally.addRefund({ amount: Number(r.amount), by_vat_rate: vatGroupsOf(r.by_vat_rate), staff_id: '' }))),
  ]);
  return tally.result();
}
