import type { TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';

export interface DeviceInfo {
  id: string;
  name: string;
  type: string;
  location: { id: string; name: string; timezone: string };
  merchant: { id: string; slug: string; name: string };
  profile: { id: string; name: string; type: string; settings: Record<string, unknown> } | null;
}

/** `GET /device-auth/user`: what the device app shows about itself. */
export async function getDeviceInfo(tdb: TenantDb, merchant: { id: string; slug: string; name: string }, deviceId: string): Promise<DeviceInfo> {
  const d = await tdb
    .selectFrom('devices')
    .innerJoin('locations', 'locations.id', 'devices.location_id')
    .leftJoin('device_profiles', 'device_profiles.id', 'devices.device_profile_id')
    .select([
      'devices.id',
      'devices.name',
      'devices.type',
      'locations.id as location_id',
      'locations.name as location_name',
      'locations.timezone',
      'device_profiles.id as profile_id',
      'device_profiles.name as profile_name',
      'device_profiles.type as profile_type',
      'device_profiles.settings as profile_settings',
    ])
    .where('devices.id', '=', deviceId)
    .where('devices.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!d) throw errors.notFound('device');
  return {
    id: d.id,
    name: d.name,
    type: d.type,
    location: { id: d.location_id, name: d.location_name, timezone: d.timezone },
    merchant: { id: merchant.id, slug: merchant.slug, name: merchant.name },
    profile: d.profile_id && d.profile_name && d.profile_type ? { id: d.profile_id, name: d.profile_name, type: d.profile_type, settings: d.profile_settings ?? {} } : null,
  };
}
