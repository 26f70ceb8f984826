import type { PosAdminScope } from './pos-admin-scope.ts';
import { presentRegister, type RegisterView } from './register-records.ts';

/**
 * `GET /back-office/pos/{locationId}/registers` (VIEW_POS_CONFIGURATION): the location's registers,
 * live ones first, then by creation. Retired registers are listed only with `include_retired`.
 */
export async function listRegisters(scope: PosAdminScope, locationId: string, opts: { includeRetired?: boolean } = {}): Promise<RegisterView[]> {
  let q = scope.tdb.selectFrom('pos_registers').selectAll().where('location_id', '=', locationId);
  if (!opts.includeRetired) q = q.where('retired_at', 'is', null);
  const rows = await q.orderBy((eb) => eb('retired_at', 'is not', null)).orderBy('created_at').orderBy('id').execute();
  return rows.map(presentRegister);
}
