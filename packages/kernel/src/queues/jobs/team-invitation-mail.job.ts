import { Type } from '@sinclair/typebox';
import { defineJob } from '../job-definition.ts';
import { QUEUES } from '../names.ts';

export const TEAM_INVITATION_MAIL_JOB = 'team.invitation-mail';

/**
 * A team invitation's mail (`POST /team/users`, `/team/users/global`, `resend-invitation`): the worker
 * issues the invitation's token when it sends the mail (template `team-invitation`), as `account.mail`
 * does, so the token is never written in clear to the outbox, `job_failures` or the queue (the payload
 * names the invitation only). An invitation accepted, expired or gone by then gets no mail.
 */
export const teamInvitationMailJob = defineJob({
  name: TEAM_INVITATION_MAIL_JOB,
  queue: QUEUES.notifications,
  version: 1,
  payload: Type.Object(
    {
      invitation_id: Type.String({ pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$' }),
    },
    { additionalProperties: false },
  ),
  retries: 5,
  backoffMs: 2000,
});
