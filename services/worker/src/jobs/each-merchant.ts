import { bindTenant, isTenantSchemaName, type CentralDb, type TenantDb } from '@pos/db';
import type { Logger } from '@pos/kernel';

const UNDEFINED_TABLE = '42P01';

/**
 * Runs `run` in every merchant's schema (or only `tenantDatabase`), oldest merchant first, for the
 * scheduled sweeps. One merchant's failure does not stop the others: it is logged as `failure` and
 * counted; a schema without the sweep's tables yet (being created) is skipped.
 */
export async function eachMerchant(
  db: CentralDb,
  log: Logger,
  failure: string,
  tenantDatabase: string | undefined,
  run: (tdb: TenantDb, merchant: { id: string; tenant_database: string }) => Promise<void>,
): Promise<{ merchants: number; errors: number }> {
  let q = db.selectFrom('merchants').select(['id', 'tenant_database']).orderBy('created_at');
  if (tenantDatabase) q = q.where('tenant_database', '=', tenantDatabase);
  const merchants = await q.execute();
  let errors = 0;
  for (const m of merchants) {
    if (!isTenantSchemaName(m.tenant_database)) continue;
    try {
      await run(bindTenant(db, m.tenant_database), m);
    } catch (e) {
      if ((e as { code?: unknown } | null)?.code === UNDEFINED_TABLE) continue;
      errors++;
      log.error(failure, { merchant_id: m.id, err: e });
    }
  }
  return { merchants: merchants.length, errors };
}
