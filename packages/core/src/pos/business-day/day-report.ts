import type { Kysely } from 'kysely';
import type { TenantTables } from '@pos/db';
import type { ReportInput, ReportRefund, ReportSale } from '@pos/domain/reports/x-report';
import type { VatRateTotal } from '@pos/domain/orders/order-totals';

type Db = Kysely<TenantTables>;

const parse = <T>(v: unknown): T => (typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));

/** Staff id of a sale taken without one (never by the register, which always has a member signed in). */
export const UNKNOWN_STAFF = 'unknown';

/**
 * The settled sales and the refunds booked on a location's business date, as the X and Z reports
 * read them: each sale with its total, frozen tender, the order's VAT groups and who took it; each
 * refund with its cash amount, VAT groups and who gave it. Oldest first.
 */
export async function dayReportInput(db: Db, locationId: string, date: string): Promise<ReportInput> {
  const sales = await db
    .selectFrom('pos_transactions as t')
    .innerJoin('pos_orders as o', 'o.id', 't.order_id')
    .leftJoin('staff_credentials as s', 's.id', 't.staff_id')
    .select(['t.id', 't.total', 't.tender', 'o.totals', 't.staff_id', 's.name as staff_name'])
    .where('t.location_id', '=', locationId)
    .where('t.business_date', '=', date)
    .orderBy('t.created_at')
    .orderBy('t.id')
    .execute();
  const refunds = await db
    .selectFrom('pos_refunds as r')
    .leftJoin('staff_credentials as s', 's.id', 'r.staff_id')
    .select(['r.amount', 'r.rounding', 'r.by_vat_rate', 'r.staff_id', 's.name as staff_name'])
    .where('r.location_id', '=', locationId)
    .where('r.business_date', '=', date)
    .orderBy('r.created_at')
    .orderBy('r.id')
    .execute();
  return {
    sales: sales.map(
      (s): ReportSale => ({
        total: s.total,
        tender: s.tender,
        by_vat_rate: parse<{ by_vat_rate?: VatRateTotal[] }>(s.totals)?.by_vat_rate ?? [],
        staff_id: s.staff_id ?? UNKNOWN_STAFF,
        staff_name: s.staff_name,
      }),
    ),
    refunds: refunds.map(
      (r): ReportRefund => ({ amount: r.amount, rounding: r.rounding, by_vat_rate: parse<VatRateTotal[]>(r.by_vat_rate) ?? [], staff_id: r.staff_id, staff_name: r.staff_name }),
    ),
  };
}

/** Tills of the location not yet closed (open, or ended and waiting for their count or close). */
export async function unclosedTills(db: Db, locationId: string, openedBefore?: Date) {
  let q = db.selectFrom('pos_tills').selectAll().where('location_id', '=', locationId).where('state', '<>', 'closed');
  if (openedBefore) q = q.where('opened_at', '<', openedBefore);
  return q.orderBy('opened_at').execute();
}
