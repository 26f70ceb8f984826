import type { TenantDb } from '@pos/db';
import { findProfile, profileView, type DeviceProfileView } from './device-records.ts';

/** `GET /back-office/device-profiles/{id}`: 404 for an unknown or foreign id. */
export async function getDeviceProfile(tdb: TenantDb, profileId: string): Promise<DeviceProfileView> {
  const p = await findProfile(tdb, profileId);
  return profileView(tdb, p.id);
}
