import type { TenantDb } from '@pos/db';

/**
 * Makes the merchant's default payment profile report `provider` to every location on it, with the
 * rows the API path leaves (card-a: a connected account whose onboarding finished, card-b: a card-b
 * account; null: neither). For tests about what happens after the choice; the path itself (connect,
 * onboarding, `account.updated`, default switch) is tested in webhooks/card-a-events.test.ts.
 */
export async function reportInPersonProvider(tdb: TenantDb, provider: 'card-a' | 'card-b' | null): Promise<void> {
  const accounts = {
    card_a_account_id: provider === 'card-a' ? 'acct_test_in_person' : null,
    card_a_charges_enabled: provider === 'card-a',
    card_b_account_id: provider === 'card-b' ? 'cb_test_in_person' : null,
  };
  const updated = await tdb.updateTable('payment_profiles').set(accounts).where('is_default', '=', true).executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) await tdb.insertInto('payment_profiles').values({ id: crypto.randomUUID(), name: 'Test payments', is_default: true, ...accounts }).execute();
}
