import { errors } from '@pos/kernel';
import { FIRST_PARTY_POS_REQUIRED, isFirstPartyMerchant } from '@pos/core/pos/first-party';
import type { TenantContext } from '@pos/core/auth/tenant-context';

/** `first-party-pos` (spec 2 gating 4): back-office POS and KDS groups answer 403 for a merchant without the marker. */
export function firstPartyPos() {
  return (ctx: { tenant: TenantContext }) => {
    if (!isFirstPartyMerchant(ctx.tenant.merchant)) throw errors.forbidden(FIRST_PARTY_POS_REQUIRED);
  };
}
