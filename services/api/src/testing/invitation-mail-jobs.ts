import { sql } from 'kysely';
import { TEAM_INVITATION_MAIL_JOB, type JobPayload, type teamInvitationMailJob } from '@pos/kernel/queues/index';
import { systemClock } from '@pos/kernel';
import { mailerFromEnv } from '@pos/providers/mail/mailer';
// The worker's own handler and mail driver: the invitee reads the mail the worker would send.
import type { JobContext } from '../../../worker/src/jobs/job-handler.ts';
import { handleTeamInvitationMail } from '../../../worker/src/jobs/team-invitation-mail.handler.ts';
import { messagingDriver } from '../../../worker/src/notifications/driver.ts';
import type { TestApi } from './harness.ts';

/**
 * Runs the `team.invitation-mail` jobs waiting in the outbox as the worker does (API tests start no
 * worker): marks the rows relayed and runs the worker's handler for each, which issues the token and
 * mails it through the test API's SMTP catcher (`api.mail`). Only those of `merchantIds`' invitations
 * when given (the outbox is shared with other test files, which may leave rows of their own). Answers
 * how many ran.
 */
export async function runInvitationMailJobs(api: TestApi, merchantIds?: readonly string[]): Promise<number> {
  let q = api.deps.db.updateTable('outbox').set({ relayed_at: new Date() }).where('job', '=', TEAM_INVITATION_MAIL_JOB).where('relayed_at', 'is', null);
  if (merchantIds) {
    q = q.where(
      sql<string>`payload->>'invitation_id'`,
      'in',
      api.deps.db.selectFrom('invitations').select(sql<string>`id::text`.as('id')).where('merchant_id', 'in', merchantIds.length ? [...merchantIds] : ['00000000-0000-0000-0000-000000000000']),
    );
  }
  const rows = await q.returning(['payload']).execute();
  const mailer = mailerFromEnv(api.deps.config);
  const ctx: JobContext = { db: api.deps.db, log: api.deps.log, clock: systemClock, notifications: messagingDriver({ mailer, sms: null }), jobId: 'test' };
  try {
    for (const r of rows) {
      const payload = (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as JobPayload<typeof teamInvitationMailJob>;
      await handleTeamInvitationMail(payload, ctx);
    }
  } finally {
    mailer?.close();
  }
  return rows.length;
}

/** The invitation token as the invitee reads it in the newest invitation mail to `email` (after `runInvitationMailJobs`). */
export async function mailedInvitationToken(api: TestApi, email: string): Promise<string> {
  if (!api.mail) throw new Error('the test API names its own SMTP server: read the mail there');
  const m = await api.mail.waitFor(email, (x) => x.subject.startsWith('You are invited to join '));
  return invitationTokenIn(m.text);
}

/** The token in an invitation mail's text. */
export function invitationTokenIn(text: string): string {
  const token = /Accept the invitation with this token within 7 days: (\S+)/.exec(text)?.[1];
  if (!token) throw new Error('no invitation token in the mail');
  return token;
}

/** The invitation mail jobs queued for `email` (any merchant), oldest first. */
export async function invitationMailRows(api: TestApi, email: string) {
  return api.deps.db
    .selectFrom('outbox')
    .innerJoin('invitations', (j) => j.on(sql<string>`outbox.payload->>'invitation_id'`, '=', sql<string>`invitations.id::text`))
    .innerJoin('users', 'users.id', 'invitations.user_id')
    .select(['outbox.queue', 'outbox.job', 'outbox.payload'])
    .where('outbox.job', '=', TEAM_INVITATION_MAIL_JOB)
    .where('users.email', '=', email.toLowerCase())
    .orderBy('outbox.id')
    .execute();
}

/** Deletes the invitation mail jobs of these merchants' invitations (a test file's cleanup: no relay mails them later). */
export async function dropInvitationMailJobs(api: TestApi, merchantIds: readonly string[]): Promise<void> {
  if (!merchantIds.length) return;
  await api.deps.db
    .deleteFrom('outbox')
    .where('job', '=', TEAM_INVITATION_MAIL_JOB)
    .where(sql<string>`payload->>'invitation_id'`, 'in', api.deps.db.selectFrom('invitations').select(sql<string>`id::text`.as('id')).where('merchant_id', 'in', [...merchantIds]))
    .execute();
}
