import { sql } from 'kysely';
import { logActivity } from '../activity/log-activity.ts';
import { endLiveStaffSessions } from '../pos/staff/staff-session.ts';
import { requireNotBeingSubscribed } from './device-subscription-claims.ts';
import { findDevice, inMerchantTx, requireLocationAccess, type BackofficeScope } from './device-records.ts';
import { unbindDeviceRegisters } from '../pos-admin/register-records.ts';

/**
 * `DELETE /back-office/devices/{id}`: soft delete. The registry's token version is bumped and the
 * activation code cleared in the same transaction, so the device's tokens stop working (401) and its
 * code can no longer activate anything; the staff sessions opened on it end (work-outs queued).
 * A device a subscribe request is billing at card-a right now is refused (409), never billed once deleted.
 */
export async function deleteDevice(scope: BackofficeScope, deviceId: string): Promise<void> {
  const d = await findDevice(scope.tdb, deviceId);
  requireLocationAccess(scope.access, d.location_id, 'DELETE_DEVICES');
  await inMerchantTx(scope.db, scope.merchant.tenant_database, async ({ central, tenant }) => {
    await requireNotBeingSubscribed(tenant, d.id, scope.now);
    await tenant.updateTable('devices').set({ deleted_at: scope.now }).where('id', '=', d.id).where('deleted_at', 'is', null).execute();
    await central
      .updateTable('device_registry')
      .set({ token_version: sql`token_version + 1`, activation_code: null, activation_code_used_at: null })
      .where('id', '=', d.id)
      .where('merchant_id', '=', scope.merchant.id)
      .execute();
    await endLiveStaffSessions(tenant, scope.merchant.tenant_database, { deviceId: d.id }, scope.now);
    await unbindDeviceRegisters(tenant, d.id);
    await logActivity(tenant, { userId: scope.userId, action: 'deleted', subject: 'device', subjectId: d.id, properties: { name: d.name, type: d.type } });
  });
}
