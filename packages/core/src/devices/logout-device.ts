import { sql } from 'kysely';
import type { CentralDb } from '@pos/db';

/** `POST /device-auth/logout`: bumps the device's token version, so every token it holds stops working (401). */
export async function logoutDevice(db: CentralDb, merchantId: string, deviceId: string): Promise<void> {
  await db
    .updateTable('device_registry')
    .set({ token_version: sql`token_version + 1` })
    .where('id', '=', deviceId)
    .where('merchant_id', '=', merchantId)
    .execute();
}
