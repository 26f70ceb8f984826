import type Redis from 'ioredis';
import { bindTenant, enqueueOutbox, type CentralDb } from '@pos/db';
import { accountMailJob, jobMessage } from '@pos/kernel/queues/index';
import { endUserSessions } from '../auth/revocation.ts';
import { TOKEN_LIFETIME_SECONDS } from '../auth/principal.ts';
import { errors, type Logger } from '@pos/kernel';
import type { Mailer } from '@pos/providers/mail/mailer';
import { createMerchant, dropMerchant } from '../merchants/create-merchant.ts';
import { hashSecret } from '../security/passwords.ts';
import { consumeToken, issueToken } from './account-tokens.ts';
import { renderAccountMail, type AccountMail } from './mail-templates.ts';

export interface AccountMailing {
  db: CentralDb;
  /** Null when SMTP is not configured: the flows that must mail answer 503. */
  mailer: Mailer | null;
  /** Base of the links in mails (the back-office front end). */
  appUrl: string;
  log: Logger;
}

const NO_MAIL = 'E-mail delivery is not configured.';

export async function sendAccountMail(s: AccountMailing, to: string, m: AccountMail): Promise<void> {
  if (!s.mailer) throw errors.unavailable(NO_MAIL);
  await s.mailer.send(renderAccountMail(to, m));
}

export interface RegisterInput {
  name: string;
  email: string;
  password: string;
  business_name: string;
}

export const EMAIL_TAKEN = 'The email has already been taken.';

function slugFrom(name: string): string {
  const base = name.normalize('NFKD').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 40) || 'merchant';
  return `${base.length < 2 ? 'merchant' : base}-${crypto.randomUUID().slice(0, 6)}`;
}

/**
 * `POST /back-office/register`: a merchant (own schema), its owner (unverified, every permission,
 * every location) and the verification mail. Nothing is left behind when any step fails, the mail
 * included: an account nobody can verify would block the e-mail address.
 *
 * An address held only by a team invitation (an unverified account that owns no merchant, whose
 * password nobody knows) is not taken: the registration completes that account, and its pending
 * invitations stay open. Without that, inviting an address kept its owner from signing up their own business.
 */
export async function registerAccount(s: AccountMailing, input: RegisterInput, now: Date): Promise<{ email: string }> {
  if (!s.mailer) throw errors.unavailable(NO_MAIL);
  const email = input.email.trim().toLowerCase();
  const name = input.name.trim();
  if (!name) throw errors.field('name', 'The name field is required.');
  if (!input.business_name.trim()) throw errors.field('business_name', 'The business name field is required.');
  const invited = await invitedOnlyAccount(s.db, email);
  const passwordHash = await hashSecret(input.password);
  const merchant = await createMerchant(s.db, { slug: slugFrom(input.business_name), name: input.business_name.trim(), posProvider: null });
  const userId = invited?.id ?? Bun.randomUUIDv7();
  const profile = { password_hash: passwordHash, name, business_info: JSON.stringify({ company_name: input.business_name.trim() }), active_merchant_id: merchant.id };
  try {
    await s.db.transaction().execute(async (ctx) => {
      const inserted = invited
        ? // Compare-and-set on the hash read above: of two registrations racing for the address, one completes it.
          await ctx.updateTable('users').set(profile).where('id', '=', invited.id).where('password_hash', '=', invited.password_hash).where('email_verified_at', 'is', null).returning('id').executeTakeFirst()
        : await ctx
            .insertInto('users')
            .values({ id: userId, email, ...profile, email_verified_at: null })
            .onConflict((oc) => oc.column('email').doNothing())
            .returning('id')
            .executeTakeFirst();
      if (!inserted) throw errors.field('email', EMAIL_TAKEN);
      await ctx.insertInto('memberships').values({ user_id: userId, merchant_id: merchant.id, is_owner: true }).execute();
      const tx = bindTenant(ctx as unknown as CentralDb, merchant.tenant_database);
      const role = Bun.randomUUIDv7();
      await tx.insertInto('roles').values({ id: role, name: 'Owner', is_owner: true, permissions: [] }).execute();
      await tx.insertInto('user_roles').values({ user_id: userId, role_id: role }).execute();
      await tx.insertInto('member_settings').values({ user_id: userId, all_locations: true, created_at: now, updated_at: now }).execute();
    });
    const token = await issueToken(s.db, userId, 'verify_email', now);
    await sendAccountMail(s, email, { template: 'verify-email', name, token, link: `${s.appUrl}/verify-email?token=${encodeURIComponent(token)}` });
  } catch (e) {
    // The invited account gets back what it had (when this registration had completed it).
    if (invited) await s.db.updateTable('users').set(invited.profile).where('id', '=', invited.id).where('password_hash', '=', passwordHash).execute();
    await dropMerchant(s.db, merchant);
    throw e;
  }
  return { email };
}

/**
 * The account holding the address when only a team invitation created it (unverified, owner of no
 * merchant); throws `EMAIL_TAKEN` for any other account.
 */
async function invitedOnlyAccount(db: CentralDb, email: string) {
  const user = await db.selectFrom('users').select(['id', 'password_hash', 'name', 'business_info', 'active_merchant_id', 'email_verified_at']).where('email', '=', email).executeTakeFirst();
  if (!user) return null;
  const owns = await db.selectFrom('memberships').select('user_id').where('user_id', '=', user.id).where('is_owner', '=', true).executeTakeFirst();
  if (user.email_verified_at || owns) throw errors.field('email', EMAIL_TAKEN);
  const { id, password_hash, name, business_info, active_merchant_id } = user;
  return { id, password_hash, profile: { password_hash, name, business_info: JSON.stringify(business_info), active_merchant_id } };
}

export const INVALID_TOKEN = 'This token is invalid or has expired.';

/** `POST /back-office/verify-email`: spends the token, marks the address verified. */
export async function verifyEmail(db: CentralDb, token: string, now: Date): Promise<void> {
  const userId = await consumeToken(db, token, 'verify_email', now);
  if (!userId) throw errors.field('token', INVALID_TOKEN);
  await db.updateTable('users').set({ email_verified_at: now }).where('id', '=', userId).where('email_verified_at', 'is', null).execute();
}

/**
 * `POST /back-office/resend-verification`: a new token (the old one stops working) for an unverified
 * account; the answer is the same for an unknown or already verified address (nothing is revealed).
 * The mail leaves from the worker (`account.mail`): the request does the same work whoever asks.
 */
export async function resendVerification(s: AccountMailing, emailInput: string): Promise<void> {
  if (!s.mailer) throw errors.unavailable(NO_MAIL);
  const email = emailInput.trim().toLowerCase();
  const user = await s.db.selectFrom('users').select(['id', 'email_verified_at']).where('email', '=', email).executeTakeFirst();
  if (!user || user.email_verified_at) return;
  await enqueueOutbox(s.db, jobMessage(accountMailJob, { user_id: user.id, purpose: 'verify_email' }));
}

/** `POST /back-office/forget-password`: a reset token mailed (by the worker) to a known address; same answer otherwise. */
export async function forgetPassword(s: AccountMailing, emailInput: string): Promise<void> {
  if (!s.mailer) throw errors.unavailable(NO_MAIL);
  const email = emailInput.trim().toLowerCase();
  const user = await s.db.selectFrom('users').select(['id']).where('email', '=', email).executeTakeFirst();
  if (!user) return;
  await enqueueOutbox(s.db, jobMessage(accountMailJob, { user_id: user.id, purpose: 'reset_password' }));
}

/**
 * The `account.mail` job: issues the token (the user's earlier one of that purpose stops working) and
 * mails it. Safe to repeat: a retry mails a fresh token. A verification for an account verified
 * meanwhile, or a user gone, sends nothing. Without SMTP it throws (the job fails and is retried).
 */
export async function deliverAccountMail(s: AccountMailing, job: { user_id: string; purpose: 'verify_email' | 'reset_password' }, now: Date): Promise<void> {
  const user = await s.db.selectFrom('users').select(['id', 'name', 'email', 'email_verified_at']).where('id', '=', job.user_id).executeTakeFirst();
  if (!user || (job.purpose === 'verify_email' && user.email_verified_at)) return;
  const token = await issueToken(s.db, user.id, job.purpose, now);
  const link = (path: string) => `${s.appUrl}/${path}?token=${encodeURIComponent(token)}`;
  if (job.purpose === 'verify_email') await sendAccountMail(s, user.email, { template: 'verify-email', name: user.name, token, link: link('verify-email') });
  else await sendAccountMail(s, user.email, { template: 'reset-password', name: user.name, token, link: link('reset-password') });
}

/**
 * `PUT /back-office/update-password`: spends a reset token and sets the password. Reading the mail
 * proves the address, so an unverified account becomes verified; pending second-factor sign-ins die,
 * the user's passkeys are removed, and so does every back-office session of the user (a stolen token or a forgotten signed-in device
 * must not outlive the reset). The request itself is a guest's: it has no session to keep.
 */
export async function updatePassword(db: CentralDb, redis: Redis, input: { token: string; password: string }, now: Date): Promise<void> {
  const hash = await hashSecret(input.password);
  const userId = await consumeToken(db, input.token, 'reset_password', now);
  if (!userId) throw errors.field('token', INVALID_TOKEN);
  // Ended before the transaction as well as after it: a request of an old session that writes after
  // the passkeys are removed then finds its session ended (`assertSessionLive`); the second end covers
  // tokens signed while the transaction ran.
  await endUserSessions(redis, userId, TOKEN_LIFETIME_SECONDS.backoffice);
  await db.transaction().execute(async (tx) => {
    const u = await tx.selectFrom('users').select('email_verified_at').where('id', '=', userId).executeTakeFirstOrThrow();
    await tx.updateTable('users').set({ password_hash: hash, email_verified_at: u.email_verified_at ?? now }).where('id', '=', userId).execute();
    await tx.deleteFrom('otp_challenges').where('user_id', '=', userId).execute();
    // Any session could have enrolled a passkey with its bearer token alone, and passkey sign-in skips
    // the second factor: the ones the ended sessions added cannot be told apart, so all go (the mail says so).
    await tx.deleteFrom('passkeys').where('user_id', '=', userId).execute();
  });
  await endUserSessions(redis, userId, TOKEN_LIFETIME_SECONDS.backoffice);
}
