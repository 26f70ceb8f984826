import { createHash } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import { bindTenant, withWriteRetry, type CentralDb, type CentralTables, type TenantDb, type TenantTx } from '@pos/db';
import { BACKOFFICE_PERMISSIONS } from '@pos/domain/permissions';
import { errors, type FieldErrors } from '@pos/kernel';
import { requireGrantWithin, requireHeldPermissions, type Access, type MemberGrant } from '../auth/access.ts';
import type { BackofficeActionScope } from '../auth/backoffice-scope.ts';
import { isUuid } from '@pos/domain/ids';

/** The team use cases work in the back-office action scope (`auth/backoffice-scope.ts`). */
export type TeamScope = BackofficeActionScope;

export type CentralTx = Transaction<CentralTables>;

/** Invitation links stay valid this long; a resend starts a new period. */
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

/** SHA-256 (hex) of an invitation token: the only form the token is stored in. */
export function hashInvitationToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * One transaction over the central and the tenant tables (same connection: the tenant store is the
 * transaction bound to the merchant's schema), retried on serialization failure or deadlock.
 */
export function inTeamTransaction<T>(scope: TeamScope, work: (central: CentralTx, tenant: TenantTx) => Promise<T>): Promise<T> {
  return withWriteRetry(() =>
    scope.db.transaction().execute((ctx) => work(ctx, bindTenant(ctx as unknown as CentralDb, scope.merchant.tenant_database) as unknown as TenantTx)),
  );
}

/** Throws the 422 when any field error was collected. */
export function throwIfInvalid(errs: FieldErrors): void {
  if (Object.keys(errs).length) throw errors.validation(errs);
}

export function addError(errs: FieldErrors, field: string, text: string): void {
  (errs[field] ??= []).push(text);
}

// ---------------------------------------------------------------------------------------------
// Roles

export interface RoleView {
  id: string;
  name: string;
  is_owner: boolean;
  /** The owner role holds every permission: the whole catalogue is listed for it. */
  permissions: string[];
  users_count: number;
  created_at: string;
}

type RoleRow = { id: string; name: string; is_owner: boolean; permissions: string[]; created_at: Date };

export function presentRole(r: RoleRow, usersCount: number): RoleView {
  return {
    id: r.id,
    name: r.name,
    is_owner: r.is_owner,
    permissions: r.is_owner ? [...BACKOFFICE_PERMISSIONS] : [...r.permissions],
    users_count: usersCount,
    created_at: r.created_at.toISOString(),
  };
}

/** A role of the bound merchant, or 404 `Unable to locate the role you requested.` */
export async function findRole(tdb: TenantDb | TenantTx, roleId: string): Promise<RoleRow> {
  const role = isUuid(roleId) ? await tdb.selectFrom('roles').select(['id', 'name', 'is_owner', 'permissions', 'created_at']).where('id', '=', roleId).executeTakeFirst() : undefined;
  if (!role) throw errors.notFound('role');
  return role;
}

export async function countRoleUsers(tdb: TenantDb | TenantTx, roleId: string): Promise<number> {
  const r = await tdb.selectFrom('user_roles').select((eb) => eb.fn.countAll<number>().as('n')).where('role_id', '=', roleId).executeTakeFirstOrThrow();
  return Number(r.n);
}

/**
 * Collects `role_ids.N` errors: unknown ids (not UUIDs, or not roles of this merchant) and the owner
 * role, which the team routes never grant. Returns the distinct ids.
 */
export async function checkRoleIds(tdb: TenantDb | TenantTx, ids: readonly string[], errs: FieldErrors, field = 'role_ids'): Promise<string[]> {
  const valid = ids.filter(isUuid);
  // Key-share locked (in the caller's transaction): a role deleted meanwhile is either gone here (422) or
  // waits for this write and then takes its links with it; before, the link insert hit the foreign key (500).
  const found = valid.length ? await tdb.selectFrom('roles').select(['id', 'is_owner']).where('id', 'in', valid).orderBy('id').forKeyShare().execute() : [];
  const byId = new Map(found.map((r) => [r.id, r]));
  ids.forEach((id, i) => {
    const role = byId.get(id.toLowerCase()) ?? byId.get(id);
    if (!role) addError(errs, `${field}.${i}`, `The selected ${field}.${i} is invalid.`);
    else if (role.is_owner) addError(errs, `${field}.${i}`, 'The owner role cannot be assigned.');
  });
  return [...new Set(found.filter((r) => !r.is_owner).map((r) => r.id))];
}

/** Collects `location_ids.N` errors for ids that are not locations of this merchant; returns the distinct ids. */
export async function checkLocationIds(tdb: TenantDb | TenantTx, ids: readonly string[], errs: FieldErrors, field = 'location_ids'): Promise<string[]> {
  const valid = ids.filter(isUuid);
  // Key-share locked, as `checkRoleIds`: a location deleted meanwhile is a 422 here, never a foreign-key 500.
  const found = valid.length ? await tdb.selectFrom('locations').select('id').where('id', 'in', valid).orderBy('id').forKeyShare().execute() : [];
  const known = new Set(found.map((l) => l.id));
  ids.forEach((id, i) => {
    if (!known.has(id.toLowerCase()) && !known.has(id)) addError(errs, `${field}.${i}`, `The selected ${field}.${i} is invalid.`);
  });
  return [...known];
}

// ---------------------------------------------------------------------------------------------
// Members

export type MemberStatus = 'invited' | 'active';

export interface MemberView {
  id: string;
  name: string;
  email: string;
  /** `invited` while the member's invitation is not accepted, else `active`. */
  status: MemberStatus;
  /** The merchant's owner (owner membership or owner role): cannot be removed. */
  is_owner: boolean;
  /** Access to every location, including future ones (global user or owner). */
  all_locations: boolean;
  roles: { id: string; name: string }[];
  /** Explicitly granted locations (`user_locations`). */
  location_ids: string[];
  invitation_expires_at: string | null;
  joined_at: string;
}

export interface MemberRecord {
  id: string;
  name: string;
  email: string;
  email_verified_at: Date | null;
  membership_owner: boolean;
  joined_at: Date;
}

/** A member of the bound merchant (membership-based lookup), or 404 `Unable to locate the user you requested.` */
export async function findMember(db: CentralDb | CentralTx, merchantId: string, userId: string): Promise<MemberRecord> {
  const m = isUuid(userId)
    ? await db
        .selectFrom('memberships')
        .innerJoin('users', 'users.id', 'memberships.user_id')
        .select(['users.id', memberName, 'users.email', 'users.email_verified_at', 'memberships.is_owner as membership_owner', 'memberships.created_at as joined_at'])
        .where('memberships.merchant_id', '=', merchantId)
        .where('memberships.user_id', '=', userId)
        .executeTakeFirst()
    : undefined;
  if (!m) throw errors.notFound('user');
  return m;
}

/**
 * Locks the member's membership row until the transaction ends: writes to one member's roles, grants
 * or settings then run one after the other. A member removed while this waited for the lock is gone
 * (404, as `findMember`): the write must not leave roles, grants or settings of a non-member behind.
 */
export async function lockMember(central: CentralTx, merchantId: string, userId: string): Promise<void> {
  const row = await central.selectFrom('memberships').select('user_id').where('merchant_id', '=', merchantId).where('user_id', '=', userId).forUpdate().executeTakeFirst();
  if (!row) throw errors.notFound('user');
}

/**
 * The combined location grant of the members: every location when any of them is the owner (owner
 * membership or owner role) or a global user, else the union of their granted locations.
 */
export async function membersGrant(central: CentralDb | CentralTx, tdb: TenantDb | TenantTx, merchantId: string, userIds: readonly string[]): Promise<MemberGrant> {
  if (!userIds.length) return { allLocations: false, locationIds: [] };
  const owner = await central.selectFrom('memberships').select('user_id').where('merchant_id', '=', merchantId).where('user_id', 'in', userIds).where('is_owner', '=', true).executeTakeFirst();
  const ownerRole = await tdb
    .selectFrom('user_roles')
    .innerJoin('roles', 'roles.id', 'user_roles.role_id')
    .select('user_roles.user_id')
    .where('user_roles.user_id', 'in', userIds)
    .where('roles.is_owner', '=', true)
    .executeTakeFirst();
  const global = await tdb.selectFrom('member_settings').select('user_id').where('user_id', 'in', userIds).where('all_locations', '=', true).executeTakeFirst();
  if (owner || ownerRole || global) return { allLocations: true, locationIds: [] };
  const grants = await tdb.selectFrom('user_locations').select('location_id').where('user_id', 'in', userIds).execute();
  return { allLocations: false, locationIds: [...new Set(grants.map((g) => g.location_id))] };
}

/**
 * 403 `Unauthorized: Insufficient permissions` unless every one of the members is within the caller's
 * grant (`requireGrantWithin`): a member reaching every location needs a caller holding every location.
 */
export async function requireMembersWithinGrant(
  central: CentralDb | CentralTx,
  tdb: TenantDb | TenantTx,
  merchantId: string,
  caller: Access,
  userIds: readonly string[],
): Promise<void> {
  if (caller.allLocations) return;
  requireGrantWithin(caller, await membersGrant(central, tdb, merchantId, userIds));
}

/**
 * 403 `Unauthorized: Insufficient permissions` unless the caller holds every permission of the roles
 * (`requireHeldPermissions`): a member gives or takes away only roles within their own permissions.
 */
export async function requireAssignableRoles(tdb: TenantDb | TenantTx, caller: Access, roleIds: readonly string[]): Promise<void> {
  if (!roleIds.length) return;
  const roles = await tdb.selectFrom('roles').select('permissions').where('id', 'in', roleIds).execute();
  requireHeldPermissions(caller, roles.flatMap((r) => r.permissions));
}

/** A member's name as this merchant sees it: its own display name, else the account's name. */
const memberName = sql<string>`coalesce(memberships.display_name, users.name)`.as('name');

/** Members of the merchant with their tenant-side roles, grants and settings, ordered by name. */
export async function loadMembers(db: CentralDb | CentralTx, tdb: TenantDb | TenantTx, merchantId: string, onlyUserId?: string): Promise<MemberView[]> {
  let q = db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .leftJoin('invitations', (j) => j.onRef('invitations.user_id', '=', 'memberships.user_id').onRef('invitations.merchant_id', '=', 'memberships.merchant_id'))
    .select([
      'users.id',
      memberName,
      'users.email',
      'memberships.is_owner',
      'memberships.created_at',
      'invitations.id as invitation_id',
      'invitations.accepted_at',
      'invitations.expires_at',
    ])
    .where('memberships.merchant_id', '=', merchantId);
  if (onlyUserId) q = q.where('memberships.user_id', '=', onlyUserId);
  const rows = await q.orderBy('name').orderBy('users.email').execute();
  if (!rows.length) return [];
  const ids = rows.map((r) => r.id);
  const [roles, grants, settings] = await Promise.all([
    tdb
      .selectFrom('user_roles')
      .innerJoin('roles', 'roles.id', 'user_roles.role_id')
      .select(['user_roles.user_id', 'roles.id', 'roles.name', 'roles.is_owner'])
      .where('user_roles.user_id', 'in', ids)
      .orderBy('roles.name')
      .execute(),
    tdb.selectFrom('user_locations').select(['user_id', 'location_id']).where('user_id', 'in', ids).orderBy('location_id').execute(),
    tdb.selectFrom('member_settings').select(['user_id', 'all_locations']).where('user_id', 'in', ids).execute(),
  ]);
  const allFlag = new Set(settings.filter((s) => s.all_locations).map((s) => s.user_id));
  return rows.map((r) => {
    const own = roles.filter((x) => x.user_id === r.id);
    const ownerRole = own.some((x) => x.is_owner);
    const pending = r.invitation_id !== null && r.accepted_at === null;
    return {
      id: r.id,
      name: r.name,
      email: r.email,
      status: pending ? 'invited' : 'active',
      is_owner: r.is_owner || ownerRole,
      all_locations: ownerRole || allFlag.has(r.id),
      roles: own.map((x) => ({ id: x.id, name: x.name })),
      location_ids: grants.filter((g) => g.user_id === r.id).map((g) => g.location_id),
      invitation_expires_at: pending && r.expires_at ? r.expires_at.toISOString() : null,
      joined_at: r.created_at.toISOString(),
    };
  });
}

/** One member's view (after a write), or 404. */
export async function loadMember(db: CentralDb | CentralTx, tdb: TenantDb | TenantTx, merchantId: string, userId: string): Promise<MemberView> {
  const [m] = await loadMembers(db, tdb, merchantId, userId);
  if (!m) throw errors.notFound('user');
  return m;
}
