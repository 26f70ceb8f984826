import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import type { Access } from '../auth/access.ts';
import { findMember, inTeamTransaction, loadMember, lockMember, requireMembersWithinGrant, type MemberView, type TeamScope } from './team-scope.ts';

/**
 * `PUT /team/users/{userId}` and `PUT /team/users/global/{userId}` (`globalOnly`: the member must be
 * a global user, else 404). Sets the name this merchant shows for the member (its membership's
 * display name): the person's account name is theirs alone and changes only through their own
 * profile, so another merchant cannot rename a shared account. Logs `updated user`.
 *
 * The caller (`editor`, the acting user's access) edits only a member whose whole grant is within
 * their own: a global member or the owner needs a caller holding every location; else 403
 * `Unauthorized: Insufficient permissions` and nothing is written.
 */
export async function updateMember(scope: TeamScope, editor: Access, userId: string, input: { name: string }, opts: { globalOnly?: boolean } = {}): Promise<MemberView> {
  const name = input.name.trim();
  if (!name) throw errors.field('name', 'The name field is required.');
  await inTeamTransaction(scope, async (central, tx) => {
    const member = await findMember(central, scope.merchant.id, userId);
    await lockMember(central, scope.merchant.id, member.id);
    if (opts.globalOnly && !(await loadMember(central, tx, scope.merchant.id, member.id)).all_locations) throw errors.notFound('user');
    await requireMembersWithinGrant(central, tx, scope.merchant.id, editor, [member.id]);
    await central.updateTable('memberships').set({ display_name: name }).where('merchant_id', '=', scope.merchant.id).where('user_id', '=', member.id).execute();
    await logActivity(tx, { userId: scope.userId, action: 'updated', subject: 'user', subjectId: member.id, properties: { name, previous: { name: member.name } } });
  });
  return loadMember(scope.db, scope.tdb, scope.merchant.id, userId);
}
