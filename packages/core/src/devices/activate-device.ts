import { sql } from 'kysely';
import { bindTenant, withWriteRetry, type CentralDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { DEVICE_TOKEN_TYPES, isDeviceType, type DeviceTokenType } from '../auth/principal.ts';
import { logActivity } from '../activity/log-activity.ts';
import { endLiveStaffSessions } from '../pos/staff/staff-session.ts';

export const ACTIVATION_CODE_INVALID = 'The selected activation code is invalid.';
export const ACTIVATION_CODE_USED = 'The activation code has already been used.';

/** What a device token is signed from. */
export interface IssuedDevice {
  deviceId: string;
  type: DeviceTokenType;
  locationId: string;
  merchant: { id: string; slug: string; tenant_database: string };
  /** The registry's new token version: tokens signed with an older one are dead. */
  tokenVersion: number;
}

/**
 * `POST /device-auth/activate`: consumes the code atomically (`UPDATE ... WHERE
 * activation_code_used_at IS NULL RETURNING`, so of two concurrent activations exactly one wins),
 * bumps the token version (older tokens of the device die), ends the staff sessions opened on the
 * device (work-outs queued) and stamps `devices.activated_at`, in one transaction. Unknown codes, codes of deleted devices and printer codes are 422 invalid; a consumed
 * code is 422 already used. Codes are matched case-insensitively (they are typed on tablets).
 */
export async function activateDevice(db: CentralDb, activationCode: string, now: Date): Promise<IssuedDevice> {
  const code = activationCode.trim().toUpperCase();
  if (!code) throw errors.field('activation_code', ACTIVATION_CODE_INVALID);
  return withWriteRetry(() =>
    db.transaction().execute(async (tx) => {
      const reg = await tx
        .updateTable('device_registry')
        .set({ activation_code_used_at: now, token_version: sql`token_version + 1` })
        .where('activation_code', '=', code)
        .where('activation_code_used_at', 'is', null)
        .where('type', 'in', DEVICE_TOKEN_TYPES)
        .returning(['id', 'merchant_id', 'type', 'token_version'])
        .executeTakeFirst();
      if (!reg || !isDeviceType(reg.type)) {
        const known = await tx.selectFrom('device_registry').select(['type', 'activation_code_used_at']).where('activation_code', '=', code).executeTakeFirst();
        throw errors.field('activation_code', known?.activation_code_used_at && isDeviceType(known.type) ? ACTIVATION_CODE_USED : ACTIVATION_CODE_INVALID);
      }
      const merchant = await tx.selectFrom('merchants').select(['id', 'slug', 'tenant_database']).where('id', '=', reg.merchant_id).executeTakeFirst();
      if (!merchant) throw errors.field('activation_code', ACTIVATION_CODE_INVALID);
      const tenant = bindTenant(tx as unknown as CentralDb, merchant.tenant_database);
      const device = await tenant
        .updateTable('devices')
        .set({ activated_at: now })
        .where('id', '=', reg.id)
        .where('deleted_at', 'is', null)
        .returning(['location_id'])
        .executeTakeFirst();
      // A registry row without a live device: refuse and roll the consumption back.
      if (!device) throw errors.field('activation_code', ACTIVATION_CODE_INVALID);
      // The device's earlier tokens die with the bump; so do the staff sessions opened with them.
      await endLiveStaffSessions(tenant, merchant.tenant_database, { deviceId: reg.id }, now);
      await logActivity(tenant, { userId: null, action: 'activated', subject: 'device', subjectId: reg.id });
      return { deviceId: reg.id, type: reg.type, locationId: device.location_id, merchant, tokenVersion: reg.token_version };
    }),
  );
}
