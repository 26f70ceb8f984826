import type { FieldErrors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { requireAllLocations, requireGrantedLocations, type Access } from '../auth/access.ts';
import {
  checkLocationIds,
  findMember,
  inTeamTransaction,
  loadMember,
  lockMember,
  requireAssignableRoles,
  requireMembersWithinGrant,
  throwIfInvalid,
  type MemberView,
  type TeamScope,
} from './team-scope.ts';

export interface SetMemberLocationsInput {
  location_ids: readonly string[];
  /** Global user flag (every location, including future ones); absent keeps the current value. */
  all_locations?: boolean;
}

/**
 * `PUT /team/users/{userId}/locations`: replaces the member's explicit location grants (every id a
 * location of this merchant, else 422 `location_ids.N`) and optionally sets `all_locations`, the
 * only way a member becomes or stops being a global user. Logs `updated locations`.
 *
 * The caller (`grantor`, the acting user's access) changes access only within their own grant: a
 * location added or removed outside it, or `all_locations` switched on or off, needs a caller holding
 * every location; as for role assignment, the member's whole grant must be within the caller's (a
 * global member or the owner needs a caller holding every location), and access is extended (a
 * location added, `all_locations` switched on) only for a member whose role permissions the caller
 * all holds, the member acting with them there. Else 403 `Unauthorized: Insufficient permissions` and
 * nothing is written.
 *
 * The member's membership row is locked first, so requests for the same member run one after the
 * other (each replaces what the previous one wrote) instead of colliding on `user_locations_pk`.
 */
export async function setMemberLocations(scope: TeamScope, grantor: Access, userId: string, input: SetMemberLocationsInput): Promise<MemberView> {
  await inTeamTransaction(scope, async (central, tx) => {
    const member = await findMember(central, scope.merchant.id, userId);
    await lockMember(central, scope.merchant.id, member.id);
    const errs: FieldErrors = {};
    const locationIds = await checkLocationIds(tx, input.location_ids, errs);
    const current = await tx.selectFrom('member_settings').select('all_locations').where('user_id', '=', member.id).executeTakeFirst();
    const wasAll = current?.all_locations ?? false;
    const allLocations = input.all_locations ?? wasAll;
    await requireMembersWithinGrant(central, tx, scope.merchant.id, grantor, [member.id]);
    const held = (await tx.selectFrom('user_locations').select('location_id').where('user_id', '=', member.id).execute()).map((g) => g.location_id);
    const added = locationIds.filter((id) => !held.includes(id));
    if (!grantor.allLocations) {
      if (allLocations !== wasAll) requireAllLocations(grantor);
      const next = new Set(locationIds);
      requireGrantedLocations(grantor, [...added, ...held.filter((id) => !next.has(id))]);
    }
    // Extending access hands the member's permissions out at more places: as giving them a role would.
    // (A global member's explicit list widens nothing while the flag holds.)
    if (!wasAll && (added.length > 0 || allLocations)) {
      const roles = await tx.selectFrom('user_roles').select('role_id').where('user_id', '=', member.id).execute();
      await requireAssignableRoles(tx, grantor, roles.map((r) => r.role_id));
    }
    throwIfInvalid(errs);
    await tx.deleteFrom('user_locations').where('user_id', '=', member.id).execute();
    if (locationIds.length) await tx.insertInto('user_locations').values(locationIds.map((location_id) => ({ user_id: member.id, location_id }))).execute();
    await tx
      .insertInto('member_settings')
      .values({ user_id: member.id, all_locations: allLocations, created_at: scope.now, updated_at: scope.now })
      .onConflict((oc) => oc.column('user_id').doUpdateSet({ all_locations: allLocations, updated_at: scope.now }))
      .execute();
    await logActivity(tx, {
      userId: scope.userId,
      action: 'updated locations',
      subject: 'user',
      subjectId: member.id,
      properties: { location_ids: locationIds, all_locations: allLocations },
    });
  });
  return loadMember(scope.db, scope.tdb, scope.merchant.id, userId);
}
