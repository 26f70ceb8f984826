import type { CentralDb, TenantDb } from '@pos/db';
import type { Access } from './access.ts';
import type { MerchantRecord } from './auth-records.ts';

/**
 * What a back-office use case works on: the central database (registry, memberships, outbox), the
 * bound merchant (after admin-vendor-override) and its tenant store, the acting back-office user, the
 * user's permissions and location grant, and "now" from the injected clock. The one scope of the
 * back-office use cases (devices, kitchen, table QR, register administration, team, integrations).
 */
export interface BackofficeScope {
  readonly db: CentralDb;
  readonly tdb: TenantDb;
  readonly merchant: Pick<MerchantRecord, 'id' | 'slug' | 'name' | 'tenant_database' | 'pos_provider'>;
  readonly userId: string;
  readonly access: Access;
  readonly now: Date;
}

/** The scope of a use case whose route already checked the permission it needs: no access grant. */
export type BackofficeActionScope = Omit<BackofficeScope, 'access'>;
