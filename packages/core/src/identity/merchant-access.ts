import type { CentralDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { acceptedMemberships } from '../auth/auth-records.ts';

export interface MerchantOption {
  value: string;
  label: string;
  slug: string;
}

/**
 * Merchants a user may switch to: memberships in effect (a team invitation not accepted yet is not
 * one). Internal admins may switch to any merchant; resellers reach theirs through `vendor_id`.
 */
export async function merchantOptions(db: CentralDb, userId: string): Promise<MerchantOption[]> {
  const rows = await acceptedMemberships(db)
    .innerJoin('merchants', 'merchants.id', 'memberships.merchant_id')
    .select(['merchants.id', 'merchants.name', 'merchants.slug'])
    .where('memberships.user_id', '=', userId)
    .orderBy('merchants.name')
    .execute();
  return rows.map((r) => ({ value: r.id, label: r.name, slug: r.slug }));
}

/**
 * `set-merchant`: the user must be a member of the target, or an internal admin. Records it as active.
 * An invitation not accepted yet is no membership: 404 `Unable to locate the merchant you requested.`,
 * as for any merchant the user does not belong to. A reseller acts for its merchants through
 * `vendor_id` (spec 1 `admin-vendor-override`), not with a token of the merchant: the switch is the
 * same 404 (a token of it would be refused everywhere, `mayActForMerchant`).
 */
export async function switchMerchant(db: CentralDb, userId: string, merchantId: string): Promise<{ id: string; tenant_database: string }> {
  const member = await acceptedMemberships(db)
    .innerJoin('merchants', 'merchants.id', 'memberships.merchant_id')
    .select(['merchants.id', 'merchants.tenant_database'])
    .where('memberships.user_id', '=', userId)
    .where('merchants.id', '=', merchantId)
    .executeTakeFirst();
  let target = member;
  if (!target) {
    const u = await db.selectFrom('users').select(['is_global_admin']).where('id', '=', userId).executeTakeFirst();
    const m = await db.selectFrom('merchants').select(['id', 'tenant_database']).where('id', '=', merchantId).executeTakeFirst();
    if (u?.is_global_admin && m) target = { id: m.id, tenant_database: m.tenant_database };
  }
  if (!target) throw errors.notFound('merchant');
  await db.updateTable('users').set({ active_merchant_id: target.id }).where('id', '=', userId).execute();
  return target;
}
