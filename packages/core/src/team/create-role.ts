import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { NAME_TAKEN, validateRoleInput, type RoleInput } from './role-input.ts';
import { requireHeldPermissions, type Access } from '../auth/access.ts';
import { inTeamTransaction, presentRole, type RoleView, type TeamScope } from './team-scope.ts';
import { isUniqueViolation } from '@pos/db';

export type CreateRoleInput = RoleInput;

/**
 * `POST /team/roles`: a new (non-owner) role; logs `created role`. The role holds only permissions the
 * caller (`creator`) holds (a caller holding every permission, any); else 403 `Unauthorized:
 * Insufficient permissions` and nothing is written.
 */
export async function createRole(scope: TeamScope, creator: Access, input: CreateRoleInput): Promise<RoleView> {
  try {
    return await inTeamTransaction(scope, async (_central, tx) => {
      const v = await validateRoleInput(tx, input, undefined, (permissions) => requireHeldPermissions(creator, permissions));
      const role = await tx
        .insertInto('roles')
        .values({ id: Bun.randomUUIDv7(), name: v.name, permissions: v.permissions, is_owner: false, created_at: scope.now })
        .returning(['id', 'name', 'is_owner', 'permissions', 'created_at'])
        .executeTakeFirstOrThrow();
      await logActivity(tx, { userId: scope.userId, action: 'created', subject: 'role', subjectId: role.id, properties: { name: v.name, permissions: v.permissions } });
      return presentRole(role, 0);
    });
  } catch (e) {
    // Two concurrent creates with the same name: the unique index decides, answered like the check.
    if (isUniqueViolation(e)) throw errors.field('name', NAME_TAKEN);
    throw e;
  }
}
