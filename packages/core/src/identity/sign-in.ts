import type { CentralDb } from '@pos/db';
import { AppError, errors } from '@pos/kernel';
import { verifySecret } from '../security/passwords.ts';
import { acceptedMemberships } from '../auth/auth-records.ts';
import type { SignInProof } from './sign-in-proof.ts';

export interface SignInInput {
  email: string;
  password: string;
}

export type SignInResult =
  | { kind: 'verification_required'; email: string }
  | { kind: 'signed_in'; userId: string; merchant: { id: string; tenant_database: string }; proof: SignInProof }
  /** Issue 18: the password was right but the account needs its e-mailed code (second factor). */
  | { kind: 'two_factor_required'; userId: string; email: string; merchant: { id: string; tenant_database: string }; proof: SignInProof & { kind: 'password' } };

export const BAD_CREDENTIALS = 'These credentials do not match our records.';

/** Whether `e` is sign-in's refusal of the email and password (unknown email or wrong password). */
export function isBadCredentials(e: unknown): boolean {
  return e instanceof AppError && e.errors?.['email']?.includes(BAD_CREDENTIALS) === true;
}

/**
 * Back-office password sign-in. The merchant of the token is the user's active merchant while they
 * are still a member, else their first membership. Unknown email and wrong password answer alike.
 */
export async function signIn(db: CentralDb, input: SignInInput): Promise<SignInResult> {
  const user = await db.selectFrom('users').selectAll().where('email', '=', input.email.trim().toLowerCase()).executeTakeFirst();
  // Verify against a dummy hash when the user is unknown, so timing does not reveal which emails exist.
  const ok = await verifySecret(input.password, user?.password_hash ?? DUMMY_HASH);
  if (!user || !ok) throw errors.field('email', BAD_CREDENTIALS);
  if (!user.email_verified_at) return { kind: 'verification_required', email: user.email };
  const merchant = await pickMerchant(db, user.id, user.active_merchant_id);
  if (!merchant) throw errors.field('email', 'This account has no merchant yet.');
  const proof = { kind: 'password' as const, userId: user.id, passwordHash: user.password_hash };
  if (user.two_factor_enabled) return { kind: 'two_factor_required', userId: user.id, email: user.email, merchant, proof };
  return { kind: 'signed_in', userId: user.id, merchant, proof };
}

export async function pickMerchant(db: CentralDb, userId: string, preferred: string | null) {
  // Only memberships in effect: a pending team invitation is not a merchant to sign in to.
  const rows = await acceptedMemberships(db)
    .innerJoin('merchants', 'merchants.id', 'memberships.merchant_id')
    .select(['merchants.id', 'merchants.tenant_database'])
    .where('memberships.user_id', '=', userId)
    .orderBy('memberships.created_at')
    .execute();
  return rows.find((r) => r.id === preferred) ?? rows[0];
}

const DUMMY_HASH = await Bun.password.hash('not-a-real-password', { algorithm: 'argon2id', memoryCost: 19456, timeCost: 2 });
