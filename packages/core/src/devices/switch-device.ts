import { sql } from 'kysely';
import { errors } from '@pos/kernel';
import { isDeviceType } from '../auth/principal.ts';
import { logActivity } from '../activity/log-activity.ts';
import { endLiveStaffSessions } from '../pos/staff/staff-session.ts';
import type { IssuedDevice } from './activate-device.ts';
import { findDevice, inMerchantTx } from './device-records.ts';
import type { CentralDb, TenantDb } from '@pos/db';

/**
 * `POST /device-auth/admin-switch`: an on-site admin turns this device into another device of the same
 * merchant and type. The target's token version is bumped (its previous tokens die, and the staff
 * sessions opened on it end, work-outs queued) and a token for it is issued; the caller's own token is left alone (the app discards it). Unknown or foreign target:
 * 404; itself or another type: 422 on `device_id`.
 */
export async function switchDevice(
  db: CentralDb,
  tdb: TenantDb,
  merchant: { id: string; slug: string; tenant_database: string },
  source: { id: string; type: string },
  targetId: string,
  now: Date,
): Promise<IssuedDevice> {
  const target = await findDevice(tdb, targetId);
  if (target.id === source.id || target.type !== source.type || !isDeviceType(target.type)) throw errors.field('device_id', 'The selected device id is invalid.');
  const type = target.type;
  return inMerchantTx(db, merchant.tenant_database, async ({ central, tenant }) => {
    const reg = await central
      .updateTable('device_registry')
      .set({ token_version: sql`token_version + 1` })
      .where('id', '=', target.id)
      .where('merchant_id', '=', merchant.id)
      .where('type', '=', type)
      .returning('token_version')
      .executeTakeFirst();
    if (!reg) throw errors.notFound('device');
    await tenant.updateTable('devices').set({ activated_at: sql`coalesce(activated_at, ${now})` }).where('id', '=', target.id).execute();
    // Like a re-activation: the target's staff sessions end with its earlier tokens (work-outs queued).
    await endLiveStaffSessions(tenant, merchant.tenant_database, { deviceId: target.id }, now);
    await logActivity(tenant, { userId: null, action: 'admin_switched', subject: 'device', subjectId: target.id, properties: { from_device_id: source.id } });
    return { deviceId: target.id, type, locationId: target.location_id, merchant: { id: merchant.id, slug: merchant.slug, tenant_database: merchant.tenant_database }, tokenVersion: reg.token_version };
  });
}
