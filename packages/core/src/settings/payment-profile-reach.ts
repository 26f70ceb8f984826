import type { TenantDb } from '@pos/db';
import { requireGrantedLocations, type Access } from '../auth/access.ts';
import { findPaymentProfile } from './payment-profiles.ts';

/**
 * A payment profile decides the in-person provider and the provider accounts of every location using
 * it: the locations naming it (`locations.payment_profile_id`) and, while it is the default, every
 * location naming none. Spec 1 section 5 scopes permissions to the granted locations, so, as for a
 * device profile, a change of the profile's accounts, default flag or existence is 403
 * `Unauthorized: Insufficient permissions` unless every such location is in the caller's grant
 * (`becomingDefault`: the locations naming no profile move to it too). A caller holding every
 * location passes; an unknown profile is the 404 first. A rename changes none of this and is not held.
 */
export async function requirePaymentProfileReach(tdb: TenantDb, access: Access, profileId: string, opts: { becomingDefault?: boolean } = {}): Promise<void> {
  const profile = await findPaymentProfile(tdb, profileId);
  if (access.allLocations) return;
  const throughDefault = profile.is_default || opts.becomingDefault === true;
  const users = await tdb
    .selectFrom('locations')
    .select('id')
    .where((eb) => (throughDefault ? eb.or([eb('payment_profile_id', '=', profile.id), eb('payment_profile_id', 'is', null)]) : eb('payment_profile_id', '=', profile.id)))
    .execute();
  requireGrantedLocations(access, users.map((l) => l.id));
}
