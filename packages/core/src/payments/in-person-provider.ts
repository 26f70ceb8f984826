import type { TenantDb, TenantTx } from '@pos/db';
import { reportedInPersonProvider } from '@pos/domain';

/**
 * The in-person provider each location's payment profile reports (spec 3 "Provider choice"): the
 * location's own profile (`locations.payment_profile_id`), else the merchant's default profile; see
 * `reportedInPersonProvider` for what a profile reports. Read from the records at each call, so a
 * new default, a finished card-a onboarding or a reassigned location takes effect on the next order.
 */
export async function inPersonProviders(db: TenantDb | TenantTx, locationIds: readonly string[]): Promise<Map<string, 'card-a' | 'card-b' | null>> {
  if (locationIds.length === 0) return new Map();
  // A merchant has a handful of profiles: all of them, and the locations' links, in two reads.
  const [locations, profiles] = await Promise.all([
    db.selectFrom('locations').select(['id', 'payment_profile_id']).where('id', 'in', [...locationIds]).execute(),
    db.selectFrom('payment_profiles').select(['id', 'is_default', 'card_a_account_id', 'card_a_charges_enabled', 'card_b_account_id']).execute(),
  ]);
  const fallback = profiles.find((p) => p.is_default) ?? null;
  const byId = new Map(profiles.map((p) => [p.id, p]));
  return new Map(locations.map((l) => [l.id, reportedInPersonProvider((l.payment_profile_id ? byId.get(l.payment_profile_id) : undefined) ?? fallback)]));
}

/** One location's in-person provider (null when its profile reports none, or it does not exist). */
export async function inPersonProviderOf(db: TenantDb | TenantTx, locationId: string): Promise<'card-a' | 'card-b' | null> {
  return (await inPersonProviders(db, [locationId])).get(locationId) ?? null;
}
