import { logActivity } from '../activity/log-activity.ts';
import { inMerchantTx, profileView, requireSettingsSize, requireTypedSettings, type BackofficeScope, type DeviceProfileView, type ProfileType } from './device-records.ts';

export interface CreateDeviceProfileInput {
  name: string;
  type: ProfileType;
  settings?: Record<string, unknown>;
}

/** `POST /back-office/device-profiles`. */
export async function createDeviceProfile(scope: BackofficeScope, input: CreateDeviceProfileInput): Promise<DeviceProfileView> {
  const settings = input.settings ?? {};
  requireSettingsSize(settings);
  requireTypedSettings(input.type, settings);
  const id = Bun.randomUUIDv7();
  return inMerchantTx(scope.db, scope.merchant.tenant_database, async ({ tenant }) => {
    await tenant.insertInto('device_profiles').values({ id, name: input.name.trim(), type: input.type, settings: JSON.stringify(settings) }).execute();
    await logActivity(tenant, { userId: scope.userId, action: 'created', subject: 'device_profile', subjectId: id, properties: { name: input.name.trim(), type: input.type } });
    return profileView(tenant, id);
  });
}
