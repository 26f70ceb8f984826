import { sql } from 'kysely';
import type { TenantDb, TenantTx } from '@pos/db';
import { mintIdempotencyKey, parseIdempotencyKey } from '@pos/domain';

/**
 * A new idempotency key of a kiosk (spec 3 "Transaction" rule 1: `idemp_{deviceId}_{timestampMs}`)
 * that no other key of the device has: its timestamp is now, or later than the device's last key
 * (`idempotency_key_clocks`, moved in one statement, so two processes minting in the same millisecond
 * get two timestamps) and than `after`, the key it replaces.
 */
export async function mintKioskKey(db: TenantDb | TenantTx, deviceId: string, now: Date, after?: string): Promise<string> {
  const prev = after === undefined ? null : parseIdempotencyKey(after);
  const floor = Math.max(now.getTime(), prev && prev.deviceId === deviceId ? prev.timestampMs + 1 : 0);
  const row = await db
    .insertInto('idempotency_key_clocks')
    .values({ device_id: deviceId, last_ms: floor })
    .onConflict((oc) => oc.column('device_id').doUpdateSet({ last_ms: sql`greatest(idempotency_key_clocks.last_ms + 1, excluded.last_ms)` }))
    .returning('last_ms')
    .executeTakeFirstOrThrow();
  return mintIdempotencyKey(deviceId, Number(row.last_ms));
}
