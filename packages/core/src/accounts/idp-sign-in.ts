import type Redis from 'ioredis';
import type { CentralDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { IdTokenError, type IdTokenVerifier } from '@pos/providers/idp/id-token-verifier';
import { pickMerchant } from '../identity/sign-in.ts';
import { sha256 } from './account-tokens.ts';
import type { SignInProof } from '../identity/sign-in-proof.ts';

export const IDP_NOT_CONFIGURED = 'Sign-in with an identity provider is not configured.';
export const IDP_UNVERIFIED_EMAIL = 'The identity provider has not verified this e-mail address.';
export const IDP_NO_ACCOUNT = 'No account matches this identity.';
export const IDP_REPLAYED = 'This identity credential has already been used.';

/**
 * `POST /login/idp`: verifies the ID token (see IdTokenVerifier), spends its nonce once (Redis, until
 * the token expires), then finds the user by the linked (issuer, subject), or links it on first use
 * to the account with the same e-mail, only when both the provider and we have verified that address
 * (an unverified local account could have been pre-registered by someone else).
 */
export async function idpSignIn(
  db: CentralDb,
  redis: Redis,
  verifier: IdTokenVerifier | null,
  input: { credential: string; nonce: string },
  now: Date,
): Promise<{ userId: string; merchant: { id: string; tenant_database: string }; proof: SignInProof }> {
  if (!verifier) throw errors.unavailable(IDP_NOT_CONFIGURED);
  let id;
  try {
    id = await verifier.verify(input.credential, input.nonce, now);
  } catch (e) {
    if (e instanceof IdTokenError && e.reason === 'unavailable') throw errors.unavailable(e.message);
    if (e instanceof IdTokenError) throw errors.field('credential', e.message);
    throw e;
  }
  const ttlMs = Math.max(1000, id.expiresAt.getTime() - now.getTime() + 60_000);
  const fresh = await redis.set(`idp-nonce:${sha256(`${id.issuer}\n${input.nonce}`)}`, '1', 'PX', ttlMs, 'NX');
  if (fresh !== 'OK') throw errors.field('credential', IDP_REPLAYED);

  let userId = (await db.selectFrom('user_identities').select('user_id').where('issuer', '=', id.issuer).where('subject', '=', id.subject).executeTakeFirst())?.user_id;
  if (!userId) {
    if (!id.email || !id.emailVerified) throw errors.field('credential', IDP_UNVERIFIED_EMAIL);
    const user = await db.selectFrom('users').select(['id', 'email_verified_at']).where('email', '=', id.email).executeTakeFirst();
    if (!user || !user.email_verified_at) throw errors.field('credential', IDP_NO_ACCOUNT);
    await db
      .insertInto('user_identities')
      .values({ issuer: id.issuer, subject: id.subject, user_id: user.id, email: id.email, created_at: now })
      .onConflict((oc) => oc.columns(['issuer', 'subject']).doNothing())
      .execute();
    userId = user.id;
  }
  const u = await db.selectFrom('users').select('active_merchant_id').where('id', '=', userId).executeTakeFirstOrThrow();
  const merchant = await pickMerchant(db, userId, u.active_merchant_id);
  if (!merchant) throw errors.field('credential', 'This account has no merchant yet.');
  return { userId, merchant, proof: { kind: 'none' } };
}
