import { logActivity } from '../activity/log-activity.ts';
import { deviceView, findDevice, findProfile, inMerchantTx, lockProfile, requireLocationAccess, requireProfileFits, type BackofficeScope, type DeviceView } from './device-records.ts';

/**
 * `POST /back-office/devices/{id}/profile`: binds a profile of the device's type, or unbinds with null.
 * The profile's row is locked (shared) and its type read again in the binding's transaction: a type
 * change racing it (`updateDeviceProfile`) either waits and then sees the device bound (422 there), or
 * commits first and the binding is the 422 here. Never a device bound to a profile of another type.
 */
export async function assignDeviceProfile(scope: BackofficeScope, deviceId: string, profileId: string | null): Promise<DeviceView> {
  const d = await findDevice(scope.tdb, deviceId);
  requireLocationAccess(scope.access, d.location_id, 'EDIT_DEVICES');
  if (profileId !== null) requireProfileFits(await findProfile(scope.tdb, profileId), d.type);
  return inMerchantTx(scope.db, scope.merchant.tenant_database, async ({ central, tenant }) => {
    if (profileId !== null) requireProfileFits(await lockProfile(tenant, profileId, 'share'), d.type);
    await tenant.updateTable('devices').set({ device_profile_id: profileId }).where('id', '=', d.id).execute();
    await logActivity(tenant, { userId: scope.userId, action: profileId ? 'assigned_profile' : 'unassigned_profile', subject: 'device', subjectId: d.id, properties: { device_profile_id: profileId } });
    return deviceView(central, tenant, d.id, scope.access);
  });
}
