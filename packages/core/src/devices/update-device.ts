import { logActivity } from '../activity/log-activity.ts';
import { endLiveStaffSessions } from '../pos/staff/staff-session.ts';
import { requireNotBeingSubscribed } from './device-subscription-claims.ts';
import { lockLocation } from '../settings/locations.ts';
import { unbindDeviceRegisters } from '../pos-admin/register-records.ts';
import { deviceView, findDevice, findLocation, findProfile, inMerchantTx, lockProfile, requireLocationAccess, requireProfileFits, type BackofficeScope, type DeviceView } from './device-records.ts';

export interface UpdateDeviceInput {
  name?: string;
  location_id?: string;
  device_profile_id?: string | null;
}

/**
 * `PUT /back-office/devices/{id}`: renames, moves (to a location in the grant) or rebinds the profile.
 * The type of a device never changes (its tokens carry it). A profile is bound as `assignDeviceProfile`
 * binds it (its row locked, its type read again). A move ends the staff sessions opened on the device
 * (their tokens answer 401; work-outs queued, as pin-logout does). A device a subscribe request is
 * billing at card-a right now is not moved (409): it is billed at the location it was claimed at.
 */
export async function updateDevice(scope: BackofficeScope, deviceId: string, input: UpdateDeviceInput): Promise<DeviceView> {
  const d = await findDevice(scope.tdb, deviceId);
  requireLocationAccess(scope.access, d.location_id, 'EDIT_DEVICES');
  const changes: { name?: string; location_id?: string; device_profile_id?: string | null; station_id?: null } = {};
  if (input.name !== undefined) changes.name = input.name.trim();
  // Compared as stored (lower case): the same location spelled in upper case is no move.
  if (input.location_id !== undefined && input.location_id.toLowerCase() !== d.location_id) {
    const loc = await findLocation(scope.tdb, input.location_id);
    requireLocationAccess(scope.access, loc.id, 'EDIT_DEVICES');
    changes.location_id = loc.id;
    // A KDS device shows a station of its own location only: the move unbinds the old location's station.
    changes.station_id = null;
  }
  if (input.device_profile_id !== undefined) {
    if (input.device_profile_id !== null) requireProfileFits(await findProfile(scope.tdb, input.device_profile_id), d.type);
    changes.device_profile_id = input.device_profile_id;
  }
  return inMerchantTx(scope.db, scope.merchant.tenant_database, async ({ central, tenant }) => {
    // As `assignDeviceProfile`: the profile's type read again under a shared lock, so a racing type change cannot slip in.
    if (changes.device_profile_id) requireProfileFits(await lockProfile(tenant, changes.device_profile_id, 'share'), d.type);
    if (changes.location_id !== undefined) {
      // The new location read again under a lock: one deleted meanwhile is the 404, not a foreign-key 500.
      await lockLocation(tenant, changes.location_id, 'share');
      await requireNotBeingSubscribed(tenant, d.id, scope.now);
    }
    if (Object.keys(changes).length) {
      await tenant.updateTable('devices').set(changes).where('id', '=', d.id).execute();
      // A staff session belongs to the location it was opened at (its work-in was signed there): a move ends
      // it, and a register of the old location lets the device go.
      if (changes.location_id !== undefined) {
        await endLiveStaffSessions(tenant, scope.merchant.tenant_database, { deviceId: d.id }, scope.now);
        await unbindDeviceRegisters(tenant, d.id);
      }
      await logActivity(tenant, { userId: scope.userId, action: 'updated', subject: 'device', subjectId: d.id, properties: { changes } });
    }
    return deviceView(central, tenant, d.id, scope.access);
  });
}
