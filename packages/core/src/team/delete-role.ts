import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { countRoleUsers, findRole, inTeamTransaction, type TeamScope } from './team-scope.ts';

export const OWNER_ROLE_UNDELETABLE = 'The owner role cannot be deleted.';

/**
 * `DELETE /team/roles/{roleId}`. The owner role is 409. A role still held by members is refused
 * (409) rather than detached, so deleting a role never silently takes access away from people;
 * reassign them first (`PUT /team/users/{userId}/roles`). Logs `deleted role`.
 */
export async function deleteRole(scope: TeamScope, roleId: string): Promise<void> {
  await inTeamTransaction(scope, async (_central, tx) => {
    const role = await findRole(tx, roleId);
    if (role.is_owner) throw errors.conflict(OWNER_ROLE_UNDELETABLE);
    // Lock the role so a concurrent assignment cannot slip in between the count and the delete.
    const locked = await tx.selectFrom('roles').select('id').where('id', '=', role.id).forUpdate().executeTakeFirst();
    // Deleted by a delete sent at the same time (which held the lock): the 404 a later delete gets.
    if (!locked) throw errors.notFound('role');
    const holders = await countRoleUsers(tx, role.id);
    if (holders > 0) throw errors.conflict(`The role "${role.name}" is assigned to ${holders} ${holders === 1 ? 'user' : 'users'}; remove it from them before deleting it.`, { reason: 'role_in_use' });
    await tx.deleteFrom('roles').where('id', '=', role.id).execute();
    await logActivity(tx, { userId: scope.userId, action: 'deleted', subject: 'role', subjectId: role.id, properties: { name: role.name, permissions: role.permissions } });
  });
}
