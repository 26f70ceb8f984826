import { bindTenant, type CentralDb } from '@pos/db';

/**
 * Waits (up to `ms`) until no order of the merchant is still `Pending` or `Awaiting Payment`: free and
 * test-mode orders complete in the background after their response, and a test that closes its API
 * (dropping the schema) under such a capture fails on the capture's locks.
 */
export async function backgroundCapturesSettled(db: CentralDb, tenantDatabase: string, ms = 5000): Promise<void> {
  const tdb = bindTenant(db, tenantDatabase);
  const end = Date.now() + ms;
  while (Date.now() < end && (await tdb.selectFrom('transactions').select('id').where('status', 'in', ['Pending', 'Awaiting Payment']).limit(1).execute()).length > 0) await Bun.sleep(50);
}
