import type { CentralDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { providerVisible } from '../identity/features.ts';

export const UNSUPPORTED_POS_PROVIDER = 'Unsupported POS provider.';

/** The provider list as a merchant sees it: `active` first (kill switch), then `test_only` against `is_test`. */
export async function posProviderOptions(db: CentralDb, merchant: { is_test: boolean }, staged = true) {
  const rows = await db.selectFrom('pos_providers').selectAll().orderBy('key').execute();
  return rows.filter((p) => providerVisible(p, merchant.is_test, staged)).map((p) => ({ value: p.key, label: p.name }));
}

/**
 * `POST /back-office/pos/select-provider`: the only writer of the `pos_provider` marker. A provider the
 * merchant cannot see (inactive, or test-only for a non-test merchant) is 403 `Unsupported POS provider.`;
 * `null` clears the marker.
 */
export async function selectPosProvider(db: CentralDb, merchant: { id: string; is_test: boolean }, provider: string | null, staged = true): Promise<{ pos_provider: string | null }> {
  if (provider !== null) {
    const p = await db.selectFrom('pos_providers').selectAll().where('key', '=', provider).executeTakeFirst();
    if (!p || !providerVisible(p, merchant.is_test, staged)) throw errors.forbidden(UNSUPPORTED_POS_PROVIDER);
  }
  await db.updateTable('merchants').set({ pos_provider: provider }).where('id', '=', merchant.id).execute();
  return { pos_provider: provider };
}
