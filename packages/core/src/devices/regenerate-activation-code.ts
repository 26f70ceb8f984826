import { logActivity } from '../activity/log-activity.ts';
import { deviceView, findDevice, inMerchantTx, requireActivationCodeAccess, uniqueActivationCode, type BackofficeScope, type DeviceView } from './device-records.ts';

/**
 * `POST /back-office/devices/{id}/new-activation-code`: a fresh code replaces the old one (which then
 * answers 422 at activation). Tokens already issued keep working until the new code is used: an
 * activation bumps the token version. The spec names no permission, but the code takes the device
 * over: VIEW_DEVICES or CREATE_DEVICES at the device's location (docs/decisions.md "Device routes").
 */
export async function regenerateActivationCode(scope: BackofficeScope, deviceId: string): Promise<DeviceView> {
  const d = await findDevice(scope.tdb, deviceId);
  requireActivationCodeAccess(scope.access, d.location_id);
  return inMerchantTx(scope.db, scope.merchant.tenant_database, async ({ central, tenant }) => {
    const code = await uniqueActivationCode(central);
    await central
      .updateTable('device_registry')
      .set({ activation_code: code, activation_code_used_at: null })
      .where('id', '=', d.id)
      .where('merchant_id', '=', scope.merchant.id)
      .execute();
    await logActivity(tenant, { userId: scope.userId, action: 'regenerated_activation_code', subject: 'device', subjectId: d.id });
    return deviceView(central, tenant, d.id, scope.access);
  });
}
