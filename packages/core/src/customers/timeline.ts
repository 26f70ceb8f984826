import type { TenantDb, TenantTx } from '@pos/db';
import { isUuid } from '@pos/domain/ids';
import { locationExists } from '../auth/auth-records.ts';

/**
 * Appends an event to a customer's timeline. An event about a transaction is written once per kind
 * (a re-run of the finalisation writes nothing new). Returns false when it was there already.
 */
export async function addTimelineEvent(db: TenantDb | TenantTx, customerId: string, kind: string, transactionId: string | null, detail: Record<string, unknown>, now: Date): Promise<boolean> {
  const r = await db
    .insertInto('customer_timeline')
    .values({ id: Bun.randomUUIDv7(), customer_id: customerId, kind, transaction_id: transactionId, detail: JSON.stringify(detail), created_at: now })
    .onConflict((oc) => oc.columns(['customer_id', 'kind', 'transaction_id']).where('transaction_id', 'is not', null).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function listTimeline(db: TenantDb, customerId: string, limit = 50) {
  return db.selectFrom('customer_timeline').select(['kind', 'transaction_id', 'detail', 'created_at']).where('customer_id', '=', customerId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** A login that names a location of the merchant records a `visited` event there; any other location id is ignored. */
export async function recordVisit(db: TenantDb, customerId: string, locationId: string, now: Date): Promise<void> {
  if (!isUuid(locationId) || !(await locationExists(db, locationId))) return;
  await addTimelineEvent(db, customerId, 'visited', null, { location_id: locationId }, now);
}
