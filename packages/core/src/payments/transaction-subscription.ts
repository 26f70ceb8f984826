import type { TenantDb } from '@pos/db';

/**
 * The transaction a real-time client may follow: any of the merchant's for the back office, only its
 * own for a kiosk (`kioskDeviceId`). Undefined when there is none it may see.
 */
export function subscribableTransaction(tdb: TenantDb, id: string, kioskDeviceId: string | null): Promise<{ id: string; status: string } | undefined> {
  let q = tdb.selectFrom('transactions').select(['id', 'status']).where('id', '=', id);
  if (kioskDeviceId !== null) q = q.where('device_id', '=', kioskDeviceId);
  return q.executeTakeFirst();
}
