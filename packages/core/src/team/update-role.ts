import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { NAME_TAKEN, validateRoleInput, type RoleInput } from './role-input.ts';
import { requireHeldPermissions, type Access } from '../auth/access.ts';
import { countRoleUsers, findRole, inTeamTransaction, presentRole, requireMembersWithinGrant, type RoleView, type TeamScope } from './team-scope.ts';
import { isUniqueViolation } from '@pos/db';

export type UpdateRoleInput = RoleInput;

export const OWNER_ROLE_LOCKED = 'The owner role cannot be edited.';

/**
 * `PUT /team/roles/{roleId}`: replaces name and permissions; the owner role is 409; logs `updated role`.
 *
 * The caller (`editor`) adds or removes only permissions they hold (a caller holding every permission,
 * any), and changes the permissions of a role only when every member holding it is within the
 * caller's location grant (a global member or the owner needs a caller holding every location); a
 * rename alone needs neither. Else 403 `Unauthorized: Insufficient permissions`, nothing written. The
 * role row is locked first, so a concurrent assignment waits for the decision.
 */
export async function updateRole(scope: TeamScope, editor: Access, roleId: string, input: UpdateRoleInput): Promise<RoleView> {
  try {
    return await inTeamTransaction(scope, async (central, tx) => {
      const found = await findRole(tx, roleId);
      if (found.is_owner) throw errors.conflict(OWNER_ROLE_LOCKED);
      await tx.selectFrom('roles').select('id').where('id', '=', found.id).forUpdate().execute();
      const before = await findRole(tx, found.id);
      const v = await validateRoleInput(tx, input, before.id, async (permissions) => {
        const next = new Set(permissions);
        const changed = [...permissions.filter((p) => !before.permissions.includes(p)), ...before.permissions.filter((p) => !next.has(p))];
        if (!changed.length) return;
        requireHeldPermissions(editor, changed);
        const holders = await tx.selectFrom('user_roles').select('user_id').where('role_id', '=', before.id).execute();
        await requireMembersWithinGrant(central, tx, scope.merchant.id, editor, holders.map((h) => h.user_id));
      });
      const role = await tx
        .updateTable('roles')
        .set({ name: v.name, permissions: v.permissions })
        .where('id', '=', before.id)
        .returning(['id', 'name', 'is_owner', 'permissions', 'created_at'])
        .executeTakeFirstOrThrow();
      await logActivity(tx, {
        userId: scope.userId,
        action: 'updated',
        subject: 'role',
        subjectId: role.id,
        properties: { name: v.name, permissions: v.permissions, previous: { name: before.name, permissions: before.permissions } },
      });
      return presentRole(role, await countRoleUsers(tx, role.id));
    });
  } catch (e) {
    if (isUniqueViolation(e)) throw errors.field('name', NAME_TAKEN);
    throw e;
  }
}
