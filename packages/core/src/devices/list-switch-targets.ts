import type { TenantDb } from '@pos/db';

export interface SwitchTarget {
  id: string;
  name: string;
  type: string;
  location: { id: string; name: string; timezone: string };
}

/** `GET /device-auth/admin-options`: the merchant's other live devices of the caller's type, with their locations. */
export async function listSwitchTargets(tdb: TenantDb, device: { id: string; type: string }): Promise<SwitchTarget[]> {
  const rows = await tdb
    .selectFrom('devices')
    .innerJoin('locations', 'locations.id', 'devices.location_id')
    .select(['devices.id', 'devices.name', 'devices.type', 'locations.id as location_id', 'locations.name as location_name', 'locations.timezone'])
    .where('devices.deleted_at', 'is', null)
    .where('devices.type', '=', device.type as 'pos' | 'kiosk' | 'kds')
    .where('devices.id', '!=', device.id)
    .orderBy('locations.name')
    .orderBy('devices.name')
    .orderBy('devices.id')
    .execute();
  return rows.map((r) => ({ id: r.id, name: r.name, type: r.type, location: { id: r.location_id, name: r.location_name, timezone: r.timezone } }));
}
