import { logActivity } from '../activity/log-activity.ts';
import { findProfile, inMerchantTx, type BackofficeScope } from './device-records.ts';

/**
 * `DELETE /back-office/device-profiles/{id}`: deletes the profile and unbinds the devices that used it
 * (they fall back to no profile), in one transaction. Chosen over refusing with 409 so a profile can
 * always be retired; the activity entry records how many devices were unbound. Returns that number.
 */
export async function deleteDeviceProfile(scope: BackofficeScope, profileId: string): Promise<number> {
  const p = await findProfile(scope.tdb, profileId);
  return inMerchantTx(scope.db, scope.merchant.tenant_database, async ({ tenant }) => {
    const unbound = await tenant.updateTable('devices').set({ device_profile_id: null }).where('device_profile_id', '=', p.id).returning('id').execute();
    await tenant.deleteFrom('device_profiles').where('id', '=', p.id).execute();
    await logActivity(tenant, { userId: scope.userId, action: 'deleted', subject: 'device_profile', subjectId: p.id, properties: { name: p.name, unbound_devices: unbound.length } });
    return unbound.length;
  });
}
