import { FIRST_PARTY_DEVICE_TYPES, isFirstPartyMerchant } from '../pos/first-party.ts';
import { DEVICE_TYPES, DEVICE_TYPE_LABELS, grantedLocationIds, type BackofficeScope, type DeviceType } from './device-records.ts';

export interface DeviceFormOptions {
  location_options: { value: string; label: string }[];
  type_options: { value: DeviceType; label: string }[];
  device_profile_options: { value: string; label: string; type: string }[];
}

/**
 * `GET /back-office/devices/new`: what the create form offers: locations in the caller's grant, the
 * device types this merchant may create (pos and kds only with the first-party marker) and profiles.
 */
export async function deviceFormOptions(scope: BackofficeScope): Promise<DeviceFormOptions> {
  const granted = grantedLocationIds(scope.access);
  let locations = scope.tdb.selectFrom('locations').select(['id', 'name']).orderBy('name');
  if (granted !== 'all') locations = granted.length ? locations.where('id', 'in', granted) : locations.where((eb) => eb.val(false));
  const [locs, profiles] = await Promise.all([locations.execute(), scope.tdb.selectFrom('device_profiles').select(['id', 'name', 'type']).orderBy('name').execute()]);
  const firstParty = isFirstPartyMerchant(scope.merchant);
  return {
    location_options: locs.map((l) => ({ value: l.id, label: l.name })),
    type_options: DEVICE_TYPES.filter((t) => firstParty || !FIRST_PARTY_DEVICE_TYPES.has(t)).map((t) => ({ value: t, label: DEVICE_TYPE_LABELS[t] })),
    device_profile_options: profiles.map((p) => ({ value: p.id, label: p.name, type: p.type })),
  };
}
