import { bindTenant, type CentralDb } from '@pos/db';
import { errors } from '@pos/kernel';
import type { TenantContext } from './tenant.ts';
import { isUuid } from '@pos/domain/ids';

/**
 * `admin-vendor-override`: `vendor_id` rebinds the tenant only for an internal admin or the merchant's
 * own reseller; no effect when absent. Returns the rebound tenant and whether the caller is elevated.
 */
export async function applyVendorOverride(db: CentralDb, userId: string, current: TenantContext, vendorId: string | undefined): Promise<{ tenant: TenantContext; elevated: boolean }> {
  if (!vendorId || vendorId === current.merchant.id) return { tenant: current, elevated: false };
  const user = await db.selectFrom('users').select(['is_global_admin', 'reseller_id']).where('id', '=', userId).executeTakeFirst();
  const target = isUuid(vendorId) ? await db.selectFrom('merchants').selectAll().where('id', '=', vendorId).executeTakeFirst() : undefined;
  const allowed = !!user && !!target && (user.is_global_admin || (user.reseller_id !== null && target.reseller_id === user.reseller_id));
  if (!allowed || !target) throw errors.insufficientPermissions();
  return { tenant: { merchant: target, db: bindTenant(db, target.tenant_database) }, elevated: true };
}
