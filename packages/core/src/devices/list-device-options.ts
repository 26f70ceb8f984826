import { grantedLocationIds, type BackofficeScope, type DeviceType } from './device-records.ts';

export interface DeviceOption {
  value: string;
  label: string;
  type: DeviceType;
  location_id: string;
}

/** `GET /back-office/devices/options`: live devices at locations in the caller's grant, by name. */
export async function listDeviceOptions(scope: BackofficeScope, filter: { location_id?: string; type?: DeviceType } = {}): Promise<DeviceOption[]> {
  const granted = grantedLocationIds(scope.access);
  let q = scope.tdb.selectFrom('devices').select(['id', 'name', 'type', 'location_id']).where('deleted_at', 'is', null);
  if (granted !== 'all') q = granted.length ? q.where('location_id', 'in', granted) : q.where((eb) => eb.val(false));
  if (filter.location_id) q = q.where('location_id', '=', filter.location_id);
  if (filter.type) q = q.where('type', '=', filter.type);
  const rows = await q.orderBy('name').orderBy('id').execute();
  return rows.map((r) => ({ value: r.id, label: r.name, type: r.type, location_id: r.location_id }));
}
