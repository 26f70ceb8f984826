import type { FieldErrors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import type { Access } from '../auth/access.ts';
import {
  checkRoleIds,
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

/**
 * `PUT /team/users/{userId}/roles`: replaces the member's roles with `role_ids` (every id a role of
 * this merchant, else 422 `role_ids.N`). The owner role is neither granted nor taken away here: an
 * owner keeps it. Gate: ASSIGN_ROLES. Logs `assigned roles`.
 *
 * The caller (`grantor`, the acting user's access) changes only the roles of a member within their
 * own location grant (a global member or the owner needs a caller holding every location), and gives
 * or takes away only roles whose permissions they all hold (a caller holding every permission, like
 * the owner, any role); a role the member keeps is no change. Else 403 `Unauthorized: Insufficient
 * permissions` and nothing is written. The membership row is locked first.
 */
export async function assignRoles(scope: TeamScope, grantor: Access, userId: string, input: { role_ids: readonly string[] }): Promise<MemberView> {
  await inTeamTransaction(scope, async (central, tx) => {
    const member = await findMember(central, scope.merchant.id, userId);
    await lockMember(central, scope.merchant.id, member.id);
    const errs: FieldErrors = {};
    const roleIds = await checkRoleIds(tx, input.role_ids, errs);
    await requireMembersWithinGrant(central, tx, scope.merchant.id, grantor, [member.id]);
    const before = await tx.selectFrom('user_roles').select('role_id').where('user_id', '=', member.id).execute();
    const held = new Set(before.map((r) => r.role_id));
    const next = new Set(roleIds);
    // Removed roles exclude the owner role (never taken away here; checkRoleIds refuses it as a new one).
    const ownerRoles = new Set((await tx.selectFrom('roles').select('id').where('is_owner', '=', true).execute()).map((r) => r.id));
    await requireAssignableRoles(tx, grantor, [...roleIds.filter((id) => !held.has(id)), ...[...held].filter((id) => !next.has(id) && !ownerRoles.has(id))]);
    throwIfInvalid(errs);
    await tx
      .deleteFrom('user_roles')
      .where('user_id', '=', member.id)
      .where('role_id', 'not in', (eb) => eb.selectFrom('roles').select('id').where('is_owner', '=', true))
      .execute();
    if (roleIds.length) {
      await tx
        .insertInto('user_roles')
        .values(roleIds.map((role_id) => ({ user_id: member.id, role_id })))
        .onConflict((oc) => oc.columns(['user_id', 'role_id']).doNothing())
        .execute();
    }
    await logActivity(tx, {
      userId: scope.userId,
      action: 'assigned roles',
      subject: 'user',
      subjectId: member.id,
      properties: { role_ids: roleIds, previous_role_ids: before.map((r) => r.role_id) },
    });
  });
  return loadMember(scope.db, scope.tdb, scope.merchant.id, userId);
}
