import { logActivity } from '../activity/log-activity.ts';
import { findProfile, inMerchantTx, lockProfile, requireProfileWithinGrant, type BackofficeScope } from './device-records.ts';

/**
 * `DELETE /back-office/device-profiles/{id}`: deletes the profile and unbinds the devices that used it
 * (they fall back to no profile), in one transaction. Chosen over refusing with 409 so a profile can
 * always be retired; the activity entry records how many devices were unbound. Returns that number.
 * 403 while a device using the profile is outside the caller's grant (its row locked first).
 */
export async function deleteDeviceProfile(scope: BackofficeScope, profileId: string): Promise<number> {
  const found = await findProfile(scope.tdb, profileId);
  return inMerchantTx(scope.db, scope.merchant.tenant_database, async ({ tenant }) => {
    const p = await lockProfile(tenant, found.id, 'update');
    await requireProfileWithinGrant(tenant, scope.access, p.id);
    const unbound = await tenant.updateTable('devices').set({ device_profile_id: null }).where('device_profile_id', '=', p.id).returning('id').execute();
    await tenant.deleteFrom('device_profiles').where('id', '=', p.id).execute();
    await logActivity(tenant, { userId: scope.userId, action: 'deleted', subject: 'device_profile', subjectId: p.id, properties: { name: p.name, unbound_devices: unbound.length } });
    return unbound.length;
  });
}
