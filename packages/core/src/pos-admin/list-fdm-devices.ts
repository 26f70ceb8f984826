import type { PosAdminScope } from './pos-admin-scope.ts';
import { presentFdmDevice, type FdmDeviceView } from './fdm-device-records.ts';

/**
 * `GET /back-office/pos/{locationId}/fdm-devices` (VIEW_POS_CONFIGURATION): every enrolment of the
 * location, the active one first, then retired ones newest first (a retired enrolment stays listed).
 */
export async function listFdmDevices(scope: PosAdminScope, locationId: string): Promise<FdmDeviceView[]> {
  const rows = await scope.tdb
    .selectFrom('fdm_devices')
    .selectAll()
    .where('location_id', '=', locationId)
    .orderBy((eb) => eb('status', '<>', 'active'))
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
  return rows.map(presentFdmDevice);
}
