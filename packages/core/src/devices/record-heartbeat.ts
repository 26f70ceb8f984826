import type { TenantDb } from '@pos/db';

/** `POST /device-auth/heartbeat`: liveness, written on every ping (the per-request touch is throttled to 30 s). */
export async function recordHeartbeat(tdb: TenantDb, deviceId: string, now: Date): Promise<void> {
  await tdb.updateTable('devices').set({ last_seen_at: now }).where('id', '=', deviceId).execute();
}
