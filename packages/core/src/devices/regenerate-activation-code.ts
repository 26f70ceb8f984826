import { logActivity } from '../activity/log-activity.ts';
import { deviceView, findDevice, inMerchantTx, requireLocationAccess, uniqueActivationCode, type BackofficeScope, type DeviceView } from './device-records.ts';

/**
 * `POST /back-office/devices/{id}/new-activation-code`: a fresh code replaces the old one (which then
 * answers 422 at activation). Tokens already issued keep working until the new code is used: an
 * activation bumps the token version. No permission of its own (spec); the device must be at a
 * location in the caller's grant.
 */
export async function regenerateActivationCode(scope: BackofficeScope, deviceId: string): Promise<DeviceView> {
  const d = await findDevice(scope.tdb, deviceId);
  requireLocationAccess(scope.access, d.location_id);
  return inMerchantTx(scope.db, scope.merchant.tenant_database, async ({ central, tenant }) => {
    const code = await uniqueActivationCode(central);
    await central
      .updateTable('device_registry')
      .set({ activation_code: code, activation_code_used_at: null })
      .where('id', '=', d.id)
      .where('merchant_id', '=', scope.merchant.id)
      .execute();
    await logActivity(tenant, { userId: scope.userId, action: 'regenerated_activation_code', subject: 'device', subjectId: d.id });
    return deviceView(central, tenant, d.id);
  });
}
