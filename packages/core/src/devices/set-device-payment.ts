import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { deviceView, findDevice, inMerchantTx, requireLocationAccess, type BackofficeScope, type DeviceView } from './device-records.ts';

export const PAYMENT_SWITCH_KIOSK_ONLY = 'Terminal payments can be turned on or off only for a kiosk.';
export const NO_TERMINAL = 'The kiosk has no payment terminal: pair a card-a reader, card-b terminal or platform-a device first.';

/**
 * `POST /back-office/devices/{id}/activate-payment` and `/deactivate-payment`: the kiosk's terminal
 * payment switch (`devices.payment_enabled`). Off, the kiosk's new payment starts are refused 422
 * `payment_disabled` (a session already paid is still captured); on, they start on its terminal again.
 * Turning it on needs a terminal bound to the kiosk (422 otherwise, nothing written). Spec permission
 * "-": the device's location must be in the caller's grant. Repeating a switch changes nothing.
 */
export async function setDevicePayment(scope: BackofficeScope, deviceId: string, enabled: boolean): Promise<DeviceView> {
  const d = await findDevice(scope.tdb, deviceId);
  requireLocationAccess(scope.access, d.location_id);
  if (d.type !== 'kiosk') throw errors.businessRule(PAYMENT_SWITCH_KIOSK_ONLY, { reason: 'not_a_kiosk' });
  return inMerchantTx(scope.db, scope.merchant.tenant_database, async ({ central, tenant }) => {
    // Read again under the row lock: a concurrent move, delete or terminal change is seen whole.
    const row = await tenant
      .selectFrom('devices')
      .select(['payment_enabled', 'card_a_reader_id', 'card_b_terminal_id', 'platform_a_device_id'])
      .where('id', '=', d.id)
      .where('deleted_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    if (!row) throw errors.notFound('device');
    if (enabled && !row.card_a_reader_id && !row.card_b_terminal_id && !row.platform_a_device_id) throw errors.businessRule(NO_TERMINAL, { reason: 'terminal_not_configured' });
    if (row.payment_enabled !== enabled) {
      await tenant.updateTable('devices').set({ payment_enabled: enabled }).where('id', '=', d.id).execute();
      await logActivity(tenant, { userId: scope.userId, action: enabled ? 'activated_payment' : 'deactivated_payment', subject: 'device', subjectId: d.id });
    }
    return deviceView(central, tenant, d.id, scope.access);
  });
}
