import { enqueueOutbox, type CentralDb } from '@pos/db';
import { jobMessage, teamInvitationMailJob } from '@pos/kernel/queues/index';
import { randomSecret } from '../security/passwords.ts';
import { hashInvitationToken, type CentralTx } from './team-scope.ts';

export const INVITATION_TEMPLATE = 'team-invitation';

/**
 * Queues the invitation's mail, relayed after commit (`team.invitation-mail`): the payload names the
 * invitation only. The token is issued by the worker when it sends the mail (`issueInvitationMail`), so
 * it is never written in clear to the outbox (kept 7 days after relay, the invitation's whole lifetime),
 * `job_failures` (90 days) or the queue.
 */
export async function enqueueInvitationEmail(central: CentralTx, invitationId: string): Promise<void> {
  await enqueueOutbox(central, jobMessage(teamInvitationMailJob, { invitation_id: invitationId }));
}

/** The hash an invitation holds until its mail is sent: of a token nobody has (no link works yet, and the one mailed before stops working). */
export function unmailedInvitationHash(): string {
  return hashInvitationToken(randomSecret(32));
}

/** What the `team-invitation` mail is filled with. */
export interface InvitationMail {
  to: string;
  merchant_name: string;
  invite_token: string;
}

/**
 * The `team.invitation-mail` job's work: a fresh token whose hash replaces the invitation's (the link
 * mailed before stops working, as `account.mail` does), and the mail to send with it. Only while the
 * invitation is pending and unexpired: accepted, expired, or gone (member removed, merchant deleted)
 * answers null and writes nothing. Safe to repeat: a retry mails a fresh token.
 */
export async function issueInvitationMail(db: CentralDb, invitationId: string, now: Date): Promise<InvitationMail | null> {
  const token = randomSecret(32);
  return db.transaction().execute(async (tx) => {
    const issued = await tx
      .updateTable('invitations')
      .set({ token_hash: hashInvitationToken(token), updated_at: now })
      .where('id', '=', invitationId)
      .where('accepted_at', 'is', null)
      .where('expires_at', '>', now)
      .returning(['user_id', 'merchant_id'])
      .executeTakeFirst();
    if (!issued) return null;
    const to = await tx.selectFrom('users').select('email').where('id', '=', issued.user_id).executeTakeFirstOrThrow();
    const merchant = await tx.selectFrom('merchants').select('name').where('id', '=', issued.merchant_id).executeTakeFirstOrThrow();
    return { to: to.email, merchant_name: merchant.name, invite_token: token };
  });
}
