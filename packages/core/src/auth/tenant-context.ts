import { bindTenant, type CentralDb, type TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { isUuid } from '@pos/domain/ids';
import type { AuthCache } from './auth-cache.ts';
import { findMerchant, findUserStanding, type MerchantRecord } from './auth-records.ts';

/** The merchant a request acts for and its tenant store (`withSchema` bound to the merchant's schema). */
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

/**
 * `admin-vendor-override`: `vendor_id` rebinds the tenant only for an internal admin or the merchant's
 * own reseller; no effect when absent. Returns the rebound tenant and whether the caller is elevated.
 */
export async function applyVendorOverride(db: CentralDb, userId: string, current: TenantContext, vendorId: string | undefined): Promise<{ tenant: TenantContext; elevated: boolean }> {
  if (!vendorId || vendorId === current.merchant.id) return { tenant: current, elevated: false };
  const user = await findUserStanding(db, userId);
  const target = isUuid(vendorId) ? await findMerchant(db, vendorId) : undefined;
  const allowed = !!user && !!target && (user.is_global_admin || (user.reseller_id !== null && target.reseller_id === user.reseller_id));
  if (!allowed || !target) throw errors.insufficientPermissions();
  return { tenant: { merchant: target, db: bindTenant(db, target.tenant_database) }, elevated: true };
}
