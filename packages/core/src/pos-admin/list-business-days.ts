import { paging, type Datatable } from '../shared/datatable.ts';
import type { PosAdminScope } from './pos-admin-scope.ts';
import { presentBusinessDay, type BusinessDaySummary } from './business-day-records.ts';

/**
 * `GET /back-office/pos/{locationId}/business-days` (VIEW_POS_REPORTS): the location's business
 * days, newest business date first, as a data table (`page`, `per_page` up to 100, default 25).
 */
export async function listBusinessDays(scope: PosAdminScope, locationId: string, query: { page?: number; per_page?: number }): Promise<Datatable<BusinessDaySummary>> {
  const { page, perPage, offset } = paging(query);
  const base = scope.tdb.selectFrom('pos_business_days').where('location_id', '=', locationId);
  const [count, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst(),
    base.selectAll().orderBy('business_date', 'desc').orderBy('id', 'desc').limit(perPage).offset(offset).execute(),
  ]);
  return { data: rows.map(presentBusinessDay), total: Number(count?.n ?? 0), page, per_page: perPage };
}
