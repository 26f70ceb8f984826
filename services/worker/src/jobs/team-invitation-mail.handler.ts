import type { teamInvitationMailJob } from '@pos/kernel/queues/index';
import { INVITATION_TEMPLATE, issueInvitationMail } from '@pos/core/team/invitation-mail';
import { renderNotification } from '../notifications/templates.ts';
import type { JobHandler } from './job-handler.ts';

/**
 * Mails a team invitation (`team.invitation-mail`): issues its token (the link mailed before stops
 * working) and sends the `team-invitation` mail through the notification driver, as `notification.send`
 * sends it. An invitation accepted, expired or gone meanwhile gets nothing. A retry mails a fresh token.
 */
export const handleTeamInvitationMail: JobHandler<typeof teamInvitationMailJob> = async (payload, ctx) => {
  const mail = await issueInvitationMail(ctx.db, payload.invitation_id, ctx.clock.now());
  if (!mail) {
    ctx.log.info('invitation no longer pending; no mail sent', { invitation_id: payload.invitation_id });
    return;
  }
  await ctx.notifications.send(
    renderNotification({ channel: 'email', to: mail.to, template: INVITATION_TEMPLATE, data: { merchant_name: mail.merchant_name, invite_token: mail.invite_token } }),
  );
};
