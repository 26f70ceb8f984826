import { bindTenant, type CentralDb, type TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import type { AuthCache } from '@pos/core/auth/auth-cache';
import { findMerchant, type MerchantRecord } from '@pos/core/auth/auth-records';

export interface TenantContext {
  readonly merchant: MerchantRecord;
  readonly db: TenantDb;
}

/** `tenant:<t>`: binds the tenant store of the token's merchant; the tenant is always the token's. */
export async function bindTokenTenant(db: CentralDb, merchantId: string, tenantDatabase: string, cache?: AuthCache): Promise<TenantContext> {
  let merchant = cache?.get<MerchantRecord>(merchantId, 'merchant');
  if (!merchant) {
    merchant = await findMerchant(db, merchantId);
    if (merchant) cache?.set(merchantId, 'merchant', merchant);
  }
  // A token whose merchant vanished or whose schema claim disagrees is not a valid token.
  if (!merchant || merchant.tenant_database !== tenantDatabase) throw errors.invalidToken();
  return { merchant, db: bindTenant(db, merchant.tenant_database) };
}
