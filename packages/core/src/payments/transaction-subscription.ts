import type { TenantDb } from '@pos/db';

/**
 * The transaction a real-time client may follow: any of the merchant's for the back office (the caller
 * checks its location against the user's grant), only its own for a kiosk (`kioskDeviceId`).
 * Undefined when there is none it may see.
 */
export function subscribableTransaction(tdb: TenantDb, id: string, kioskDeviceId: string | null): Promise<{ id: string; status: string; location_id: string } | undefined> {
  let q = tdb.selectFrom('transactions').select(['id', 'status', 'location_id']).where('id', '=', id);
  if (kioskDeviceId !== null) q = q.where('device_id', '=', kioskDeviceId);
  return q.executeTakeFirst();
}
