import { beforeAll, describe, expect, test } from 'bun:test';
import { sql } from 'kysely';
import { bindTenant } from '@pos/db';
import type { Access } from '@pos/core/auth/access';
import { dropMerchant } from '@pos/core/merchants/create-merchant';
import { seedDemo, type DemoSeedResult } from '@pos/core/seed/demo-seed';
import { acceptInvitation, invitationDetails } from '@pos/core/team/accept-invitation';
import { inviteMember } from '@pos/core/team/invite-member';
import { removeMember } from '@pos/core/team/remove-member';
import { hashInvitationToken } from '@pos/core/team/team-scope';
import { createLogger, type Clock } from '@pos/kernel';
import { TEAM_INVITATION_MAIL_JOB } from '@pos/kernel/queues/index';
import { handleTeamInvitationMail } from './jobs/team-invitation-mail.handler.ts';
import type { TeamScope } from '@pos/core/team/team-scope';
import { mailerFromEnv } from '@pos/providers/mail/mailer';
import { startSmtpCatcher, type SmtpCatcher } from '@pos/providers/mail/smtp-catcher';
import { UnrecoverableJobError } from './jobs/job-handler.ts';
import { messagingDriver, type NotificationDriver } from './notifications/driver.ts';
import type { RenderedNotification } from './notifications/templates.ts';
import { startWorker } from './worker.ts';
import { testWorkerDeps, waitFor } from './test-support.ts';
import { workerTestbed } from './worker-testbed.ts';

/**
 * A team invitation's token exists in clear only in the mail: the API queues a job naming the
 * invitation, and the worker issues the token when it sends the mail. Before, the token sat in the
 * outbox row (7 days after relay), in `job_failures` (90 days) and in bee-queue's job hash, and
 * whoever read any of them could join the merchant as the invitee.
 */
let smtp: SmtpCatcher;
let m: DemoSeedResult;
let merchant: TeamScope['merchant'];
let ownerId: string;
const bed = workerTestbed(async (env) => {
  await dropMerchant(env.handle.db, { id: m.merchant.id, tenant_database: m.merchant.tenant_database });
  await smtp.stop();
});

beforeAll(async () => {
  smtp = await startSmtpCatcher();
  m = await seedDemo(bed.env.handle.db, { slug: `tim-${crypto.randomUUID().slice(0, 8)}`, reset: false, apiKey: 'k'.repeat(20), pinPepper: 'p'.repeat(20) });
  ownerId = (await bed.env.handle.db.selectFrom('users').select('id').where('email', '=', m.backoffice.email).executeTakeFirstOrThrow()).id;
  merchant = await bed.env.handle.db.selectFrom('merchants').select(['id', 'slug', 'name', 'tenant_database', 'pos_provider']).where('id', '=', m.merchant.id).executeTakeFirstOrThrow();
});

const OWNER_GRANT: Access = { permissions: new Set(), locationIds: new Set(), allLocations: true };
const scope = (): TeamScope => ({
  db: bed.env.handle.db,
  tdb: bindTenant(bed.env.handle.db, m.merchant.tenant_database),
  merchant,
  userId: ownerId,
  now: new Date(),
});
const uniqueEmail = (p: string) => `${p}-${crypto.randomUUID().slice(0, 8)}@example.com`;
const invite = (email: string) => inviteMember(scope(), OWNER_GRANT, { email, name: 'Ivy Invitee', role_ids: [], allLocations: true });
/** The token as the invitee reads it in the mail. */
const tokenIn = (text: string) => /Accept the invitation with this token within 7 days: (\S+)/.exec(text)![1]!;

/** Every key of the test's Redis database with its content, as one text. */
async function redisText(): Promise<string> {
  const r = bed.env.redis;
  const out: unknown[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await r.scan(cursor, 'MATCH', '*', 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const type = await r.type(key);
      const value =
        type === 'string' ? await r.get(key)
        : type === 'hash' ? await r.hgetall(key)
        : type === 'list' ? await r.lrange(key, 0, -1)
        : type === 'set' ? await r.smembers(key)
        : type === 'zset' ? await r.zrange(key, '0', '-1')
        : null;
      out.push([key, value]);
    }
  } while (cursor !== '0');
  return JSON.stringify(out);
}

describe('team invitation mails', () => {
  test('after the invitation and its mail job, no outbox row, job_failures row or Redis key holds the token; the mailed token joins', async () => {
    const db = bed.env.handle.db;
    const email = uniqueEmail('invitee');
    const refused = uniqueEmail('refused');
    const mailer = mailerFromEnv({ SMTP_URL: smtp.smtpUrl });
    const real = messagingDriver({ mailer, sms: null });
    // One address's mail fails for good (the mail server refuses it): its job lands in `job_failures`.
    const refusedMails: RenderedNotification[] = [];
    const notifications: NotificationDriver = {
      name: 'test',
      async send(n) {
        if (n.to !== refused) return real.send(n);
        refusedMails.push(n);
        throw new UnrecoverableJobError('the mail server refused the message (550)');
      },
    };
    await invite(email);
    await invite(refused);
    const prefix = bed.prefix();
    bed.worker = await startWorker({ ...testWorkerDeps(bed.env, prefix), notifications });

    const mail = await smtp.waitFor(email, () => true, 15_000);
    expect(mail.subject).toBe(`You are invited to join ${merchant.name}`);
    const token = tokenIn(mail.text);
    expect(mail.text).toContain(`You have been invited to the back office of ${merchant.name}. Accept the invitation with this token within 7 days: ${token}`);
    await waitFor(() => refusedMails.length > 0, 15_000, 'the refused mail');
    const refusedToken = tokenIn(refusedMails[0]!.body);
    const failures = await waitFor(async () => {
      const rows = await db.selectFrom('job_failures').select([sql<string>`envelope::text`.as('envelope'), 'error', 'job']).where('prefix', '=', prefix).execute();
      return rows.length > 0 && rows;
    }, 15_000, 'the job_failures row');
    expect(failures).toHaveLength(1);
    // Wait for the relay to have marked every row relayed (the rows stay 7 days after that).
    await waitFor(async () => !(await db.selectFrom('outbox').select('id').where('relayed_at', 'is', null).executeTakeFirst()), 15_000, 'the relay');

    const outbox = JSON.stringify(await db.selectFrom('outbox').select([sql<string>`payload::text`.as('payload')]).execute());
    const failed = JSON.stringify(await db.selectFrom('job_failures').select([sql<string>`envelope::text`.as('envelope'), 'error']).execute());
    const redis = await redisText();
    for (const t of [token, refusedToken]) {
      expect(outbox).not.toContain(t);
      expect(failed).not.toContain(t);
      expect(redis).not.toContain(t);
    }

    // The mailed token still joins (a new account chooses its password).
    const joined = await acceptInvitation(db, { token, password: 'invitee-password-1' }, new Date());
    expect(joined).toMatchObject({ email, merchant_id: m.merchant.id });
    mailer?.close();
  }, 60_000);

  test('the job names the invitation only; its handler issues a fresh token per mail while the invitation is pending, nothing once accepted, expired or removed', async () => {
    const db = bed.env.handle.db;
    const sent: RenderedNotification[] = [];
    const ctx = { db, log: createLogger({}, 'error'), clock: { now: () => new Date() } as Clock, notifications: { name: 'capture', send: async (n: RenderedNotification) => void sent.push(n) }, jobId: 'test' };
    const email = uniqueEmail('handler');
    const member = await invite(email);
    const inv = await db.selectFrom('invitations').select(['id', 'token_hash']).where('merchant_id', '=', merchant.id).where('user_id', '=', member.id).executeTakeFirstOrThrow();
    const rows = await db.selectFrom('outbox').select(['queue', 'job', 'payload']).where('job', '=', TEAM_INVITATION_MAIL_JOB).where(sql<string>`payload->>'invitation_id'`, '=', inv.id).execute();
    expect(rows).toEqual([{ queue: 'notifications', job: TEAM_INVITATION_MAIL_JOB, payload: { invitation_id: inv.id } }]);
    await db.deleteFrom('outbox').where('job', '=', TEAM_INVITATION_MAIL_JOB).where(sql<string>`payload->>'invitation_id'`, '=', inv.id).execute();
    const issue = async () => {
      await handleTeamInvitationMail({ invitation_id: inv.id }, ctx);
      const n = sent.at(-1)!;
      expect(n).toMatchObject({ channel: 'email', to: email, template: 'team-invitation', subject: `You are invited to join ${merchant.name}` });
      return tokenIn(n.body);
    };
    const first = await issue();
    // Before its mail the invitation held the hash of a token nobody has; now the mailed one's.
    expect(inv.token_hash).not.toBe(hashInvitationToken(first));
    expect((await db.selectFrom('invitations').select('token_hash').where('id', '=', inv.id).executeTakeFirstOrThrow()).token_hash).toBe(hashInvitationToken(first));
    expect(await invitationDetails(db, first, new Date())).toMatchObject({ email, requires_password: true });
    // A second run (a resend, a retry) rotates: the earlier link stops working.
    const second = await issue();
    expect(second).not.toBe(first);
    await expect(invitationDetails(db, first, new Date())).rejects.toThrow();
    expect(await invitationDetails(db, second, new Date())).toMatchObject({ email });
    expect(sent).toHaveLength(2);

    const stored = async () => (await db.selectFrom('invitations').select('token_hash').where('id', '=', inv.id).executeTakeFirst())?.token_hash;
    // Expired: nothing sent, nothing written.
    await db.updateTable('invitations').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', inv.id).execute();
    await handleTeamInvitationMail({ invitation_id: inv.id }, ctx);
    expect(sent).toHaveLength(2);
    expect(await stored()).toBe(hashInvitationToken(second));
    // Accepted: nothing.
    await db.updateTable('invitations').set({ expires_at: new Date(Date.now() + 3600_000), accepted_at: new Date() }).where('id', '=', inv.id).execute();
    await handleTeamInvitationMail({ invitation_id: inv.id }, ctx);
    expect(sent).toHaveLength(2);
    expect(await stored()).toBe(hashInvitationToken(second));
    // Removed (the invitation is deleted with the membership): nothing.
    await db.updateTable('invitations').set({ accepted_at: null }).where('id', '=', inv.id).execute();
    await removeMember(scope(), OWNER_GRANT, member.id);
    expect(await stored()).toBeUndefined();
    await handleTeamInvitationMail({ invitation_id: inv.id }, ctx);
    await handleTeamInvitationMail({ invitation_id: Bun.randomUUIDv7() }, ctx);
    expect(sent).toHaveLength(2);
  });
});
