import { sql } from 'kysely';
import type { CentralDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { hashSecret, randomDigits, randomSecret, verifySecret } from '../security/passwords.ts';
import { sha256 } from './account-tokens.ts';
import { sendAccountMail, type AccountMailing } from './sign-up.ts';
import { credentialStamp, type SignInProof } from '../identity/sign-in-proof.ts';

/** A pending sign-in lives 15 minutes; its code 10 minutes; 5 wrong codes end it. */
export const PENDING_LOGIN_TTL_MS = 15 * 60_000;
export const OTP_TTL_MS = 10 * 60_000;
export const OTP_MAX_ATTEMPTS = 5;

export const PENDING_INVALID = 'This sign-in has expired; sign in again.';
export const OTP_NOT_REQUESTED = 'Request a code first.';
export const OTP_WRONG = 'The code is invalid or has expired.';
export const OTP_LOCKED = 'Too many wrong codes; sign in again.';

/**
 * After a good password of a two-factor account: a pending sign-in, its token returned once (only its
 * hash is kept). It remembers which password it was started with (a digest of its hash): once the
 * password changes it cannot complete, even if it was written after the reset cleared the pending ones.
 */
/**
 * Deletes pending sign-ins that ended a day ago or more (expired, completed or not): one row per good
 * password of a two-factor account, 15 minutes of use each, nothing reads them later. Answers the count.
 */
export async function purgeEndedPendingLogins(db: CentralDb, now: Date): Promise<number> {
  const r = await db.deleteFrom('otp_challenges').where('expires_at', '<', new Date(now.getTime() - 86_400_000)).executeTakeFirst();
  return Number(r.numDeletedRows);
}

export async function startPendingLogin(db: CentralDb, proof: SignInProof & { kind: 'password' }, merchantId: string, now: Date): Promise<string> {
  const loginToken = randomSecret(32);
  await db
    .insertInto('otp_challenges')
    .values({
      id: Bun.randomUUIDv7(),
      user_id: proof.userId,
      merchant_id: merchantId,
      login_token_hash: sha256(loginToken),
      credential_stamp: credentialStamp(proof.passwordHash),
      expires_at: new Date(now.getTime() + PENDING_LOGIN_TTL_MS),
      created_at: now,
    })
    .execute();
  return loginToken;
}

async function pending(db: CentralDb, loginToken: string, now: Date) {
  const c = await db
    .selectFrom('otp_challenges')
    .innerJoin('users', 'users.id', 'otp_challenges.user_id')
    .selectAll('otp_challenges')
    .select('users.password_hash')
    .where('login_token_hash', '=', sha256(loginToken))
    .executeTakeFirst();
  if (!c || c.completed_at || c.expires_at <= now) throw errors.field('login_token', PENDING_INVALID);
  // Started with a password that has changed since (a reset): dead like the sessions the reset ended.
  if (c.credential_stamp !== credentialStamp(c.password_hash)) throw errors.field('login_token', PENDING_INVALID);
  return c;
}

/** `POST /back-office/request-otp`: a new 6-digit code (the previous one stops working), mailed; stored as argon2id. */
export async function requestOtp(s: AccountMailing, loginToken: string, now: Date): Promise<void> {
  if (!s.mailer) throw errors.unavailable('E-mail delivery is not configured.');
  const c = await pending(s.db, loginToken, now);
  if (c.attempts >= OTP_MAX_ATTEMPTS) throw errors.field('login_token', OTP_LOCKED);
  const code = randomDigits(6);
  await s.db.updateTable('otp_challenges').set({ code_hash: await hashSecret(code), code_expires_at: new Date(now.getTime() + OTP_TTL_MS) }).where('id', '=', c.id).execute();
  const user = await s.db.selectFrom('users').select(['email', 'name']).where('id', '=', c.user_id).executeTakeFirstOrThrow();
  await sendAccountMail(s, user.email, { template: 'sign-in-code', name: user.name, code, minutes: OTP_TTL_MS / 60_000 });
}

/**
 * `POST /back-office/verify-otp`: the attempt is counted before the code is checked (one UPDATE, so
 * parallel guesses cannot exceed the limit); a good code completes the sign-in once.
 *
 * Five guesses per pending sign-in do not bound the guesses on an account: whoever holds the password
 * starts new sign-ins. `limitUserAttempts` (the route's per-user throttle) counts every attempt on the
 * user's sign-ins first; past it the attempt is refused before it is counted against this sign-in.
 */
export async function verifyOtp(
  db: CentralDb,
  input: { login_token: string; code: string },
  now: Date,
  limitUserAttempts: (userId: string) => Promise<void> = async () => {},
): Promise<{ userId: string; merchant: { id: string; tenant_database: string }; proof: SignInProof }> {
  const c = await pending(db, input.login_token, now);
  if (!c.code_hash || !c.code_expires_at) throw errors.field('code', OTP_NOT_REQUESTED);
  await limitUserAttempts(c.user_id);
  const counted = await db
    .updateTable('otp_challenges')
    .set({ attempts: sql`attempts + 1` })
    .where('id', '=', c.id)
    .where('attempts', '<', OTP_MAX_ATTEMPTS)
    .returning('attempts')
    .executeTakeFirst();
  if (!counted) throw errors.field('code', OTP_LOCKED);
  const ok = c.code_expires_at > now && (await verifySecret(input.code, c.code_hash));
  if (!ok) throw errors.field('code', counted.attempts >= OTP_MAX_ATTEMPTS ? OTP_LOCKED : OTP_WRONG);
  const done = await db.updateTable('otp_challenges').set({ completed_at: now, code_hash: null }).where('id', '=', c.id).where('completed_at', 'is', null).returning('id').executeTakeFirst();
  if (!done) throw errors.field('login_token', PENDING_INVALID);
  const merchant = await db.selectFrom('merchants').select(['id', 'tenant_database']).where('id', '=', c.merchant_id).executeTakeFirst();
  if (!merchant) throw errors.field('login_token', PENDING_INVALID);
  return { userId: c.user_id, merchant, proof: { kind: 'password', userId: c.user_id, passwordHash: c.password_hash } };
}
