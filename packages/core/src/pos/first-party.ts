/**
 * Spec 2 "Availability gating": a merchant is a first-party-register merchant when its `pos_provider`
 * marker equals `firstparty`. Back-office POS and KDS groups (middleware `first-party-pos`) and device
 * creation of type pos or kds answer 403 with this message for a merchant without the marker.
 */
export const FIRST_PARTY_POS_REQUIRED = 'The first-party register is not enabled for this merchant.';

/** The value of `merchants.pos_provider` that marks a first-party-register merchant. */
export const FIRST_PARTY_PROVIDER = 'firstparty';

/** True when the merchant carries the first-party marker (spec 2 gating rule 1). */
export function isFirstPartyMerchant(merchant: { readonly pos_provider: string | null }): boolean {
  return merchant.pos_provider === FIRST_PARTY_PROVIDER;
}

/** Device types that need the first-party marker to be created (spec 2 gating rule 5). */
export const FIRST_PARTY_DEVICE_TYPES: ReadonlySet<string> = new Set(['pos', 'kds']);
