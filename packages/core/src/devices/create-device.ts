import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { FIRST_PARTY_DEVICE_TYPES, FIRST_PARTY_POS_REQUIRED, isFirstPartyMerchant } from '../pos/first-party.ts';
import { lockLocation } from '../settings/locations.ts';
import { deviceView, findLocation, findProfile, inMerchantTx, lockProfile, requireLocationAccess, requireProfileFits, uniqueActivationCode, type BackofficeScope, type DeviceType, type DeviceView } from './device-records.ts';

export interface CreateDeviceInput {
  name: string;
  type: DeviceType;
  location_id: string;
  device_profile_id?: string | null;
}

/**
 * `POST /back-office/devices`: creates the tenant device and its central registry row with a fresh
 * activation code, in one transaction with the activity entry. Refusals: pos or kds for a merchant
 * without the first-party marker (403, spec 2 gating rule 5); unknown location (404) or one outside
 * the caller's grant (403); unknown profile (404) or one of another type (422).
 */
export async function createDevice(scope: BackofficeScope, input: CreateDeviceInput): Promise<DeviceView> {
  if (FIRST_PARTY_DEVICE_TYPES.has(input.type) && !isFirstPartyMerchant(scope.merchant)) throw errors.forbidden(FIRST_PARTY_POS_REQUIRED);
  const location = await findLocation(scope.tdb, input.location_id);
  requireLocationAccess(scope.access, location.id, 'CREATE_DEVICES');
  if (input.device_profile_id) requireProfileFits(await findProfile(scope.tdb, input.device_profile_id), input.type);
  const id = Bun.randomUUIDv7();
  return inMerchantTx(scope.db, scope.merchant.tenant_database, async ({ central, tenant }) => {
    // Both read again under a lock: a location or profile deleted meanwhile is the 404 (before, the insert
    // hit the foreign key: 500), and a profile's type changed meanwhile is seen (as `assignDeviceProfile`).
    await lockLocation(tenant, location.id, 'share');
    if (input.device_profile_id) requireProfileFits(await lockProfile(tenant, input.device_profile_id, 'share'), input.type);
    const code = await uniqueActivationCode(central);
    await central.insertInto('device_registry').values({ id, merchant_id: scope.merchant.id, type: input.type, activation_code: code }).execute();
    await tenant
      .insertInto('devices')
      .values({
        id,
        location_id: location.id,
        type: input.type,
        name: input.name.trim(),
        device_profile_id: input.device_profile_id ?? null,
        network_info: JSON.stringify({}),
      })
      .execute();
    await logActivity(tenant, { userId: scope.userId, action: 'created', subject: 'device', subjectId: id, properties: { name: input.name.trim(), type: input.type, location_id: location.id } });
    return deviceView(central, tenant, id, scope.access);
  });
}
