import { deviceView, findDevice, requireLocationAccess, type BackofficeScope, type DeviceView } from './device-records.ts';

/** `GET /back-office/devices/{id}`: 404 for an unknown or foreign id, 403 outside the caller's grant. */
export async function getDevice(scope: BackofficeScope, deviceId: string): Promise<DeviceView> {
  const d = await findDevice(scope.tdb, deviceId);
  requireLocationAccess(scope.access, d.location_id, 'VIEW_DEVICES');
  return deviceView(scope.db, scope.tdb, d.id, scope.access);
}
