import { logActivity } from '../activity/log-activity.ts';
import { inTenantTx, type PosAdminScope } from './pos-admin-scope.ts';
import { findFdmDevice, presentFdmDevice, type FdmDeviceView } from './fdm-device-records.ts';

/**
 * `PUT /back-office/pos/{locationId}/fdm-devices/{fdmDeviceId}` with `{status:'retired'}`
 * (MANAGE_POS_CONFIGURATION): retires the enrolment (`retired_at`). The register stops signing at the
 * location until another module is enrolled; the journal and the fiscal history stay. A retired
 * enrolment is never reactivated (enrol a module instead); retiring it again answers it unchanged.
 */
export async function retireFdmDevice(scope: PosAdminScope, locationId: string, id: string): Promise<FdmDeviceView> {
  const row = await inTenantTx(scope.tdb, async (tx) => {
    const current = await findFdmDevice(tx, locationId, id, { lock: true });
    if (current.status === 'retired') return current;
    const retired = await tx.updateTable('fdm_devices').set({ status: 'retired', retired_at: scope.now }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
    await logActivity(tx, { userId: scope.userId, action: 'retired', subject: 'fdm_device', subjectId: id, properties: { location_id: locationId, fdm_id: current.fdm_id } });
    return retired;
  });
  return presentFdmDevice(row);
}
