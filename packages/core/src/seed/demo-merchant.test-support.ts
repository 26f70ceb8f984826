import { bindTenant, createDatabase, migrateCentral, type DatabaseHandle, type TenantDb } from '@pos/db';
import { dropMerchant } from '../merchants/create-merchant.ts';
import { seedDemo, type DemoSeedResult } from './demo-seed.ts';

export interface DemoMerchant {
  readonly h: DatabaseHandle;
  readonly m: DemoSeedResult;
  readonly tdb: TenantDb;
  /** Drops the merchant and closes the handle. */
  readonly close: () => Promise<void>;
}

/** A demo merchant of its own for one test file (slug `<prefix>-<random>`), on `DATABASE_URL`. */
export async function seedDemoMerchant(prefix: string): Promise<DemoMerchant> {
  const h = createDatabase(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/ordering_test', { max: 4 });
  await migrateCentral(h.db);
  const m = await seedDemo(h.db, { slug: `${prefix}-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: 'k'.repeat(20), pinPepper: 'p'.repeat(20) });
  return {
    h,
    m,
    tdb: bindTenant(h.db, m.merchant.tenant_database),
    close: async () => {
      await dropMerchant(h.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
      await h.close();
    },
  };
}
