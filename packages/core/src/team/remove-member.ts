import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { endLiveStaffSessions } from '../pos/staff/staff-session.ts';
import type { Access } from '../auth/access.ts';
import { findMember, inTeamTransaction, loadMember, lockMember, requireMembersWithinGrant, type TeamScope } from './team-scope.ts';

export const CANNOT_REMOVE_SELF = 'You cannot remove yourself from the team.';
export const CANNOT_REMOVE_OWNER = 'The owner of the merchant cannot be removed.';

/**
 * `DELETE /team/users/{userId}` and `DELETE /team/users/global/{userId}` (`globalOnly`: the member
 * must be a global user, else 404). Removes the membership, the invitation and the tenant rows
 * (roles, location grants, settings); the person's tokens for this merchant stop working at once
 * (authentication checks the membership), and a register credential linked to them is retired with
 * its open staff sessions. An account that never verified its e-mail and belongs to
 * no other merchant is deleted too. The caller and the merchant's owner cannot be removed (409).
 * Logs `removed user`.
 *
 * The caller (`remover`, the acting user's access) removes only a member whose whole grant is within
 * their own: a global member needs a caller holding every location; else 403 `Unauthorized:
 * Insufficient permissions` (after the 409s) and nothing is written.
 */
export async function removeMember(scope: TeamScope, remover: Access, userId: string, opts: { globalOnly?: boolean } = {}): Promise<void> {
  await inTeamTransaction(scope, async (central, tx) => {
    const member = await findMember(central, scope.merchant.id, userId);
    await lockMember(central, scope.merchant.id, member.id);
    const view = await loadMember(central, tx, scope.merchant.id, member.id);
    if (opts.globalOnly && !view.all_locations) throw errors.notFound('user');
    if (member.id === scope.userId) throw errors.conflict(CANNOT_REMOVE_SELF);
    if (view.is_owner) throw errors.conflict(CANNOT_REMOVE_OWNER);
    await requireMembersWithinGrant(central, tx, scope.merchant.id, remover, [member.id]);

    await central.deleteFrom('memberships').where('merchant_id', '=', scope.merchant.id).where('user_id', '=', member.id).execute();
    await central.deleteFrom('invitations').where('merchant_id', '=', scope.merchant.id).where('user_id', '=', member.id).execute();
    await central.updateTable('users').set({ active_merchant_id: null }).where('id', '=', member.id).where('active_merchant_id', '=', scope.merchant.id).execute();
    await tx.deleteFrom('user_roles').where('user_id', '=', member.id).execute();
    await tx.deleteFrom('user_locations').where('user_id', '=', member.id).execute();
    await tx.deleteFrom('member_settings').where('user_id', '=', member.id).execute();
    // The register credential linked to the person goes with the membership: its PIN no longer signs
    // in, its open staff sessions end (work-outs queued), as deleting the credential does.
    const credentials = await tx.updateTable('staff_credentials').set({ deleted_at: scope.now }).where('user_id', '=', member.id).where('deleted_at', 'is', null).returning('id').execute();
    for (const c of credentials) await endLiveStaffSessions(tx, scope.merchant.tenant_database, { staffId: c.id }, scope.now);
    if (!member.email_verified_at) {
      const other = await central.selectFrom('memberships').select('merchant_id').where('user_id', '=', member.id).executeTakeFirst();
      if (!other) await central.deleteFrom('users').where('id', '=', member.id).execute();
    }
    await logActivity(tx, { userId: scope.userId, action: 'removed', subject: 'user', subjectId: member.id, properties: { email: member.email, name: member.name } });
  });
}
