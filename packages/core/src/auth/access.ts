import type { TenantDb } from '@pos/db';
import { BACKOFFICE_PERMISSIONS } from '@pos/domain/permissions';
import { errors } from '@pos/kernel';

/** What a back-office user may do within the bound merchant. */
export interface Access {
  readonly permissions: ReadonlySet<string>;
  /** Location ids granted to the user; owners and internal admins hold every location. */
  readonly locationIds: ReadonlySet<string>;
  readonly allLocations: boolean;
}

export function accessCan(a: Access, permission: string, locationId?: string): boolean {
  if (!a.permissions.has(permission)) return false;
  return locationId === undefined || reachesLocation(a, locationId);
}

/** True when the location is within the grant. UUIDs are compared in lower case (the stored spelling). */
export function reachesLocation(a: Access, locationId: string): boolean {
  return a.allLocations || a.locationIds.has(locationId.toLowerCase());
}

/** 403 `Unauthorized: Insufficient permissions` unless the caller holds every location (owner, global user, elevated). */
export function requireAllLocations(a: Access): void {
  if (!a.allLocations) throw errors.insufficientPermissions();
}

/** 403 `Unauthorized: Insufficient permissions` when any of the locations is outside the caller's grant. */
export function requireGrantedLocations(a: Access, locationIds: Iterable<string>): void {
  for (const id of locationIds) if (!reachesLocation(a, id)) throw errors.insufficientPermissions();
}

/** A member's location grant as a grant check sees it: every location (owner, global user), or the listed ones. */
export interface MemberGrant {
  readonly allLocations: boolean;
  readonly locationIds: Iterable<string>;
}

/**
 * 403 `Unauthorized: Insufficient permissions` unless the member's whole grant is within the caller's:
 * a member reaching every location needs a caller holding every location, any other member's
 * locations must all be granted to the caller. Same reach as granting those locations.
 */
export function requireGrantWithin(a: Access, member: MemberGrant): void {
  if (member.allLocations) requireAllLocations(a);
  else requireGrantedLocations(a, member.locationIds);
}

/** True when the caller holds every back-office permission (owner role, internal admin). */
export function holdsEveryPermission(a: Access): boolean {
  for (const p of FULL_PERMISSIONS) if (!a.permissions.has(p)) return false;
  return true;
}

/**
 * 403 `Unauthorized: Insufficient permissions` unless the caller holds each permission: a member
 * hands out (through a role) only permissions they hold themselves. A caller holding every
 * permission passes whatever the list holds.
 */
export function requireHeldPermissions(a: Access, permissions: Iterable<string>): void {
  if (holdsEveryPermission(a)) return;
  for (const p of permissions) if (!a.permissions.has(p)) throw errors.insufficientPermissions();
}

/**
 * Per-route permission slug, scoped to the user's granted locations: 403 `Unauthorized: Insufficient
 * permissions` without the slug, or for a `{locationId}` outside the grant.
 */
export function requirePermission(access: Access, permission: string, locationId?: string): void {
  if (!accessCan(access, permission, locationId)) throw errors.insufficientPermissions();
}

export const FULL_PERMISSIONS: ReadonlySet<string> = new Set(BACKOFFICE_PERMISSIONS);

/**
 * Loads the user's permissions (union of their roles; an owner role holds all) and location grant
 * (`user_locations`, or every location for an owner or a member flagged `all_locations`).
 * `elevated` (an internal admin or reseller acting through admin-vendor-override) holds everything.
 */
export async function loadAccess(tdb: TenantDb, userId: string, elevated: boolean): Promise<Access> {
  const locations = await tdb.selectFrom('locations').select('id').execute();
  if (elevated) return { permissions: FULL_PERMISSIONS, locationIds: new Set(locations.map((l) => l.id)), allLocations: true };
  const roles = await tdb
    .selectFrom('user_roles')
    .innerJoin('roles', 'roles.id', 'user_roles.role_id')
    .select(['roles.is_owner', 'roles.permissions'])
    .where('user_roles.user_id', '=', userId)
    .execute();
  const owner = roles.some((r) => r.is_owner);
  const permissions = owner ? FULL_PERMISSIONS : new Set(roles.flatMap((r) => r.permissions));
  if (owner) return { permissions, locationIds: new Set(locations.map((l) => l.id)), allLocations: true };
  // A "global user" (member_settings.all_locations) reaches every location, including ones created later.
  const settings = await tdb.selectFrom('member_settings').select('all_locations').where('user_id', '=', userId).executeTakeFirst();
  if (settings?.all_locations) return { permissions, locationIds: new Set(locations.map((l) => l.id)), allLocations: true };
  const grants = await tdb.selectFrom('user_locations').select('location_id').where('user_id', '=', userId).execute();
  return { permissions, locationIds: new Set(grants.map((g) => g.location_id)), allLocations: false };
}
