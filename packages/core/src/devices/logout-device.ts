import { sql } from 'kysely';
import { bindTenant, withWriteRetry, type CentralDb } from '@pos/db';
import { endLiveStaffSessions } from '../pos/staff/staff-session.ts';

/**
 * `POST /device-auth/logout`: bumps the device's token version, so every token it holds stops working
 * (401), and ends the staff sessions opened on it, each with its work-out event queued (as pin-logout
 * does), in one transaction: a staff token never outlives the device session it was opened on.
 */
export async function logoutDevice(db: CentralDb, merchantId: string, deviceId: string, now: Date): Promise<void> {
  await withWriteRetry(() =>
    db.transaction().execute(async (tx) => {
      const reg = await tx
        .updateTable('device_registry')
        .set({ token_version: sql`token_version + 1` })
        .where('id', '=', deviceId)
        .where('merchant_id', '=', merchantId)
        .returning('id')
        .executeTakeFirst();
      if (!reg) return;
      const merchant = await tx.selectFrom('merchants').select('tenant_database').where('id', '=', merchantId).executeTakeFirst();
      if (!merchant) return;
      await endLiveStaffSessions(bindTenant(tx as unknown as CentralDb, merchant.tenant_database), merchant.tenant_database, { deviceId }, now);
    }),
  );
}
