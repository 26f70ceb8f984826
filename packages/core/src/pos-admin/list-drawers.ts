import type { PosAdminScope } from './pos-admin-scope.ts';
import { presentDrawer, type DrawerView } from './drawer-records.ts';

/**
 * `GET /back-office/pos/{locationId}/drawers` (VIEW_POS_CONFIGURATION): the location's drawers, live
 * ones first, then by creation. Retired drawers are listed only with `include_retired`.
 */
export async function listDrawers(scope: PosAdminScope, locationId: string, opts: { includeRetired?: boolean } = {}): Promise<DrawerView[]> {
  let q = scope.tdb.selectFrom('drawers').selectAll().where('location_id', '=', locationId);
  if (!opts.includeRetired) q = q.where('retired_at', 'is', null);
  const rows = await q.orderBy((eb) => eb('retired_at', 'is not', null)).orderBy('created_at').orderBy('id').execute();
  return rows.map(presentDrawer);
}
