import { sql } from 'kysely';
import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { endLiveStaffSessions } from '../pos/staff/staff-session.ts';
import { DEVICE_BEING_SUBSCRIBED, requireNotBeingSubscribed } from './device-subscription-claims.ts';
import { recordUnitTakenOff, servingSubscriptionNaming, takingUnitOff, type DeviceBillingDeps, type UnitTakenOff } from './device-subscription-units.ts';
import { findDevice, inMerchantTx, requireLocationAccess, type BackofficeScope } from './device-records.ts';
import { unbindDeviceRegisters } from '../pos-admin/register-records.ts';

/**
 * `DELETE /back-office/devices/{id}`: soft delete. The registry's token version is bumped and the
 * activation code cleared in the same transaction, so the device's tokens stop working (401) and its
 * code can no longer activate anything; the staff sessions opened on it end (work-outs queued).
 * A device a subscribe request is billing at card-a right now is refused (409), never billed once deleted.
 * A device a serving subscription bills has its unit taken off at card-a first (device-subscription-units.ts):
 * card-a failing refuses the delete (503), nothing changed.
 */
export async function deleteDevice(scope: BackofficeScope, deviceId: string, deps: DeviceBillingDeps): Promise<void> {
  const d = await findDevice(scope.tdb, deviceId);
  requireLocationAccess(scope.access, d.location_id, 'DELETE_DEVICES');
  const billed = await servingSubscriptionNaming(scope.tdb, d.id);
  if (!billed) return removeDevice(scope, d, null, true);
  // Refused before card-a is asked, so a 409 never follows a unit already taken off.
  await requireNotBeingSubscribed(scope.tdb, d.id, scope.now);
  return takingUnitOff(scope.tdb, deps, billed, d.id, (unit) => removeDevice(scope, d, unit, false));
}

/** The delete's transaction; the record takes the unit card-a took off (`unit`) in it. */
async function removeDevice(scope: BackofficeScope, d: { id: string; name: string; type: string }, unit: UnitTakenOff | null, unbilled: boolean): Promise<void> {
  await inMerchantTx(scope.db, scope.merchant.tenant_database, async ({ central, tenant }) => {
    // The subscription's lock first, the device row's after, in the webhooks' order.
    if (unit) await recordUnitTakenOff(tenant, unit, scope.now);
    await requireNotBeingSubscribed(tenant, d.id, scope.now);
    // Found unbilled: read again with the device locked. A subscribe that finished since (its claim
    // cleared in the commit this lock waited for) now bills it: refused like a subscribe in flight, and
    // the retried delete takes its unit off.
    if (unbilled && (await servingSubscriptionNaming(tenant, d.id))) throw errors.conflict(DEVICE_BEING_SUBSCRIBED, { reason: 'device_subscribing' });
    const deleted = await tenant.updateTable('devices').set({ deleted_at: scope.now }).where('id', '=', d.id).where('deleted_at', 'is', null).executeTakeFirst();
    // Deleted by a delete sent at the same time: the 404 a later delete gets (before: a second 200, log entry and token bump).
    if (Number(deleted.numUpdatedRows) === 0) throw errors.notFound('device');
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
