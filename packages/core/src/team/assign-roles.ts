import type { FieldErrors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { checkRoleIds, findMember, inTeamTransaction, loadMember, throwIfInvalid, type MemberView, type TeamScope } from './team-scope.ts';

/**
 * `PUT /team/users/{userId}/roles`: replaces the member's roles with `role_ids` (every id a role of
 * this merchant, else 422 `role_ids.N`). The owner role is neither granted nor taken away here: an
 * owner keeps it. Gate: ASSIGN_ROLES only (a caller may grant any non-owner role). Logs `assigned roles`.
 */
export async function assignRoles(scope: TeamScope, userId: string, input: { role_ids: readonly string[] }): Promise<MemberView> {
  await inTeamTransaction(scope, async (central, tx) => {
    const member = await findMember(central, scope.merchant.id, userId);
    const errs: FieldErrors = {};
    const roleIds = await checkRoleIds(tx, input.role_ids, errs);
    throwIfInvalid(errs);
    const before = await tx.selectFrom('user_roles').select('role_id').where('user_id', '=', member.id).execute();
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
