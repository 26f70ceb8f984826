import type { CentralDb } from '@pos/db';
import { sha256 } from '../accounts/account-tokens.ts';
import { TOKEN_LIFETIME_SECONDS, type TokenService } from '../auth/principal.ts';

/**
 * What a sign-in rested on, to be checked again once its token is signed (`proofHolds`).
 *
 * A password reset ends the user's sessions (every token issued up to that millisecond) before and after
 * its transaction. A sign-in that read the old password a moment before the reset and signed its token
 * after the reset's second end would keep a live token from a dead password. Checked after signing, the
 * race has two outcomes only: the reset committed before the check (the check sees it: no token is
 * answered), or after it, so after the token was signed, and the reset's second end covers the token.
 */
export type SignInProof =
  /** The password hash the sign-in verified (never leaves the server). */
  | { kind: 'password'; userId: string; passwordHash: string }
  /** The passkey that signed the assertion (a reset removes them all). */
  | { kind: 'passkey'; passkeyId: string }
  /** Nothing a reset takes away: an identity provider's assertion, a spent invitation. */
  | { kind: 'none' };

/** A password hash as a pending sign-in keeps it: a digest, so the hash itself is stored once. */
export const credentialStamp = (passwordHash: string) => sha256(passwordHash);

/** True while what the sign-in proved still stands. */
export async function proofHolds(db: CentralDb, proof: SignInProof): Promise<boolean> {
  if (proof.kind === 'password') {
    const u = await db.selectFrom('users').select('password_hash').where('id', '=', proof.userId).executeTakeFirst();
    return u?.password_hash === proof.passwordHash;
  }
  if (proof.kind === 'passkey') return !!(await db.selectFrom('passkeys').select('id').where('id', '=', proof.passkeyId).executeTakeFirst());
  return true;
}

/**
 * Signs the back-office token of a completed sign-in, then checks its proof again (see `SignInProof`);
 * when it no longer holds, `refused()` is thrown and the token, never answered, is dropped.
 */
export async function signSession(
  db: CentralDb,
  tokens: TokenService,
  r: { userId: string; merchant: { id: string; tenant_database: string }; proof: SignInProof },
  refused: () => Error,
): Promise<{ token: string; token_type: 'Bearer'; expires_in: number }> {
  const token = await tokens.sign({ type: 'backoffice', sub: r.userId, merchant_id: r.merchant.id, tenant_database: r.merchant.tenant_database });
  if (!(await proofHolds(db, r.proof))) throw refused();
  return { token, token_type: 'Bearer', expires_in: TOKEN_LIFETIME_SECONDS.backoffice };
}
