import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { findProfile, inMerchantTx, lockProfile, profileView, requireProfileWithinGrant, requireSettingsSize, requireTypedSettings, type BackofficeScope, type DeviceProfileView, type ProfileType } from './device-records.ts';

export interface UpdateDeviceProfileInput {
  name?: string;
  type?: ProfileType;
  /** Replaces the settings object as a whole. */
  settings?: Record<string, unknown>;
}

/**
 * `PUT /back-office/device-profiles/{id}`. 403 while a device using the profile is outside the
 * caller's grant. The type may change only while no live device uses the profile (a profile always
 * fits the devices bound to it): otherwise 422 on `type`. The profile's row is locked first, so a
 * binding in flight (`assignDeviceProfile`) either lands before the check or sees the new type.
 */
export async function updateDeviceProfile(scope: BackofficeScope, profileId: string, input: UpdateDeviceProfileInput): Promise<DeviceProfileView> {
  const found = await findProfile(scope.tdb, profileId);
  return inMerchantTx(scope.db, scope.merchant.tenant_database, async ({ tenant }) => {
    const p = await lockProfile(tenant, found.id, 'update');
    await requireProfileWithinGrant(tenant, scope.access, p.id);
    if (input.settings) requireSettingsSize(input.settings);
    // A kds profile's settings keep the display's bounds, whichever route writes them (also on a change of type).
    const type = input.type ?? (p.type as ProfileType);
    if (input.settings !== undefined || type !== p.type) requireTypedSettings(type, input.settings ?? (typeof p.settings === 'string' ? JSON.parse(p.settings) : (p.settings as Record<string, unknown> | null)) ?? {});
    if (input.type !== undefined && input.type !== p.type) {
      const used = await tenant.selectFrom('devices').select('id').where('device_profile_id', '=', p.id).where('deleted_at', 'is', null).limit(1).executeTakeFirst();
      if (used) throw errors.field('type', 'The type cannot change while devices use this profile.');
    }
    const changes: { name?: string; type?: ProfileType; settings?: string } = {};
    if (input.name !== undefined) changes.name = input.name.trim();
    if (input.type !== undefined) changes.type = input.type;
    if (input.settings !== undefined) changes.settings = JSON.stringify(input.settings);
    if (Object.keys(changes).length) {
      await tenant.updateTable('device_profiles').set({ ...changes, updated_at: scope.now }).where('id', '=', p.id).execute();
      await logActivity(tenant, { userId: scope.userId, action: 'updated', subject: 'device_profile', subjectId: p.id, properties: { fields: Object.keys(changes) } });
    }
    return profileView(tenant, p.id);
  });
}
