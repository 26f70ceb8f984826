import type { CentralDb, TenantDb } from '@pos/db';

export interface MerchantFeatures {
  first_party_pos: boolean;
  first_party_pos_selectable: boolean;
  kiosk: boolean;
  kitchen_display: boolean;
  test_mode: boolean;
}

/**
 * Spec 2 gating 2: `active` first, then `test_only` against the merchant's `is_test`, where providers are
 * staged (`staged`: production by default, `providerStaging`).
 */
export function providerVisible(p: { active: boolean; test_only: boolean }, isTest: boolean, staged = true): boolean {
  return p.active && (!(staged && p.test_only) || isTest);
}

/** Whether `test_only` stages providers: `POS_PROVIDER_STAGING`, else on in production only. */
export function providerStaging(config: { POS_PROVIDER_STAGING?: string | undefined }, env: string): boolean {
  const v = config.POS_PROVIDER_STAGING;
  return v === undefined ? env === 'production' : v === 'true' || v === '1';
}

/** Feature flags derived from the merchant's state (marker, provider list, subscribed devices). */
export async function merchantFeatures(db: CentralDb, tdb: TenantDb, merchant: { pos_provider: string | null; is_test: boolean }, now: Date, staged = true): Promise<MerchantFeatures> {
  const provider = await db.selectFrom('pos_providers').selectAll().where('key', '=', 'firstparty').executeTakeFirst();
  const subscribed = await tdb
    .selectFrom('devices')
    .select('type')
    .distinct()
    .where('deleted_at', 'is', null)
    .where('subscription_active_until', '>', now)
    .execute();
  const types = new Set(subscribed.map((d) => d.type));
  return {
    first_party_pos: merchant.pos_provider === 'firstparty',
    first_party_pos_selectable: !!provider && providerVisible(provider, merchant.is_test, staged),
    kiosk: types.has('kiosk'),
    kitchen_display: types.has('kds'),
    test_mode: merchant.is_test,
  };
}
