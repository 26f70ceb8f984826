import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { NAME_TAKEN, validateRoleInput, type RoleInput } from './role-input.ts';
import { countRoleUsers, findRole, inTeamTransaction, presentRole, type RoleView, type TeamScope } from './team-scope.ts';
import { isUniqueViolation } from '@pos/db';

export type UpdateRoleInput = RoleInput;

export const OWNER_ROLE_LOCKED = 'The owner role cannot be edited.';

/** `PUT /team/roles/{roleId}`: replaces name and permissions; the owner role is 409; logs `updated role`. */
export async function updateRole(scope: TeamScope, roleId: string, input: UpdateRoleInput): Promise<RoleView> {
  try {
    return await inTeamTransaction(scope, async (_central, tx) => {
      const before = await findRole(tx, roleId);
      if (before.is_owner) throw errors.conflict(OWNER_ROLE_LOCKED);
      const v = await validateRoleInput(tx, input, before.id);
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
