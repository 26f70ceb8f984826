import { errors } from '@pos/kernel';
import { logActivity } from '../activity/log-activity.ts';
import { type InvitationMailLimit } from './invite-member.ts';
import { enqueueInvitationEmail, unmailedInvitationHash } from './invitation-mail.ts';
import { INVITATION_TTL_MS, findMember, inTeamTransaction, loadMember, type MemberView, type TeamScope } from './team-scope.ts';

export const INVITATION_ALREADY_ACCEPTED = 'This user has already accepted the invitation.';
export const NO_PENDING_INVITATION = 'This user has no pending invitation.';

/**
 * `POST /team/users/{userId}/resend-invitation`: only for a member who has not accepted. The old token
 * stops working at once, the 7 days start again and one new e-mail goes through the outbox (a
 * `team.invitation-mail` job: the worker issues the new token as it sends the mail). Accepted (or never invited, like the founding owner): 409. `limitMail`
 * (the per-address cap) is asked before anything is written.
 */
export async function resendInvitation(scope: TeamScope, userId: string, limitMail: InvitationMailLimit = async () => {}): Promise<MemberView> {
  await inTeamTransaction(scope, async (central, tx) => {
    const member = await findMember(central, scope.merchant.id, userId);
    const inv = await central
      .selectFrom('invitations')
      .select(['id', 'accepted_at'])
      .where('merchant_id', '=', scope.merchant.id)
      .where('user_id', '=', member.id)
      .forUpdate()
      .executeTakeFirst();
    if (!inv) throw errors.conflict(NO_PENDING_INVITATION);
    if (inv.accepted_at) throw errors.conflict(INVITATION_ALREADY_ACCEPTED);
    await limitMail(member.email);
    await central
      .updateTable('invitations')
      .set({ token_hash: unmailedInvitationHash(), expires_at: new Date(scope.now.getTime() + INVITATION_TTL_MS), invited_by: scope.userId, updated_at: scope.now })
      .where('id', '=', inv.id)
      .execute();
    await enqueueInvitationEmail(central, inv.id);
    await logActivity(tx, { userId: scope.userId, action: 'resent invitation', subject: 'user', subjectId: member.id, properties: { email: member.email } });
  });
  return loadMember(scope.db, scope.tdb, scope.merchant.id, userId);
}
