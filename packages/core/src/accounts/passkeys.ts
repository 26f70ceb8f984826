import type Redis from 'ioredis';
import type { AuthenticationResponseJSON, AuthenticatorTransport, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { CentralDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { isUuid } from '@pos/domain/ids';
import { pickMerchant } from '../identity/sign-in.ts';
import { assertSessionLive } from '../auth/revocation.ts';

export interface RelyingParty {
  id: string;
  name: string;
  origin: string;
}

/** Loaded on first use: the library costs a quarter second at start, which every process would pay. */
const webauthn = () => import('@simplewebauthn/server');

/** Challenges live 5 minutes in Redis and are spent by the verification that reads them. */
const CHALLENGE_TTL_S = 300;
export const PASSKEY_REJECTED = 'The passkey could not be verified.';
// User verification (the authenticator's PIN or biometrics) is required to enrol and to sign in: a passkey
// sign-in skips the password and the second factor, so the key alone (a found security key) must not do.

async function spendChallenge(redis: Redis, key: string): Promise<boolean> {
  return (await redis.getdel(key)) !== null;
}

export interface PasskeyView {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
}

export async function listPasskeys(db: CentralDb, userId: string): Promise<PasskeyView[]> {
  const rows = await db.selectFrom('passkeys').select(['id', 'name', 'created_at', 'last_used_at']).where('user_id', '=', userId).orderBy('created_at').execute();
  return rows.map((r) => ({ id: r.id, name: r.name, created_at: r.created_at.toISOString(), last_used_at: r.last_used_at?.toISOString() ?? null }));
}

/** `GET /back-office/passkeys/setup`: creation options for the signed-in user (own passkeys excluded). */
export async function passkeySetupOptions(db: CentralDb, redis: Redis, rp: RelyingParty, userId: string) {
  const user = await db.selectFrom('users').select(['email', 'name']).where('id', '=', userId).executeTakeFirstOrThrow();
  const existing = await db.selectFrom('passkeys').select(['credential_id', 'transports']).where('user_id', '=', userId).execute();
  const options = await (await webauthn()).generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.email,
    userDisplayName: user.name,
    userID: new TextEncoder().encode(userId),
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: p.transports as AuthenticatorTransport[] })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'required' },
    timeout: CHALLENGE_TTL_S * 1000,
  });
  await redis.set(`webauthn:reg:${userId}:${options.challenge}`, '1', 'EX', CHALLENGE_TTL_S);
  return options;
}

/**
 * `POST /back-office/passkeys/setup`: verifies the attestation against a challenge issued to this user,
 * stores the credential. `session` is the caller's (user and token id): after the insert commits it must
 * still be live, else the passkey is removed again and the answer is 401. A password reset ends the
 * user's sessions before its transaction removes their passkeys, so a passkey inserted after that removal
 * (a stolen token enrolling while the owner resets) always finds its session ended here.
 */
export async function registerPasskey(db: CentralDb, redis: Redis, rp: RelyingParty, session: { userId: string; jti: string }, input: { name?: string; response: RegistrationResponseJSON }, now: Date): Promise<PasskeyView> {
  const { userId } = session;
  let result;
  try {
    result = await (await webauthn()).verifyRegistrationResponse({
      response: input.response,
      expectedChallenge: (c) => spendChallenge(redis, `webauthn:reg:${userId}:${c}`),
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
    });
  } catch {
    // The library's reason (origin, challenge, counter...) stays server-side: one answer for every refusal.
    throw errors.field('response', PASSKEY_REJECTED);
  }
  if (!result.verified || !result.registrationInfo) throw errors.field('response', PASSKEY_REJECTED);
  const c = result.registrationInfo.credential;
  const id = Bun.randomUUIDv7();
  const name = input.name?.trim() || `Passkey ${now.toISOString().slice(0, 10)}`;
  const inserted = await db
    .insertInto('passkeys')
    .values({ id, user_id: userId, credential_id: c.id, public_key: Buffer.from(c.publicKey).toString('base64url'), counter: c.counter, transports: JSON.stringify(c.transports ?? []), name, created_at: now })
    .onConflict((oc) => oc.column('credential_id').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) throw errors.conflict('This passkey is already registered.');
  try {
    await assertSessionLive(redis, session);
  } catch (e) {
    await db.deleteFrom('passkeys').where('id', '=', id).execute();
    throw e;
  }
  return { id, name, created_at: now.toISOString(), last_used_at: null };
}

/** `DELETE /back-office/passkeys/{id}`: only the caller's own; another user's is 404. */
export async function deletePasskey(db: CentralDb, userId: string, id: string): Promise<void> {
  // An id that is not a UUID names no passkey (and must not reach the uuid column).
  if (!isUuid(id)) throw errors.notFound('passkey');
  const r = await db.deleteFrom('passkeys').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  if (!r.numDeletedRows) throw errors.notFound('passkey');
}

/** `POST /back-office/passkeys` (guest): a login challenge for any discoverable passkey of this relying party. */
export async function passkeyLoginOptions(redis: Redis, rp: RelyingParty) {
  const options = await (await webauthn()).generateAuthenticationOptions({ rpID: rp.id, userVerification: 'required', timeout: CHALLENGE_TTL_S * 1000 });
  await redis.set(`webauthn:auth:${options.challenge}`, '1', 'EX', CHALLENGE_TTL_S);
  return options;
}

/** `POST /back-office/authenticate-passkey`: verifies the assertion (challenge spent once, counter must grow). */
export async function authenticatePasskey(db: CentralDb, redis: Redis, rp: RelyingParty, response: AuthenticationResponseJSON, now: Date) {
  const pk = await db.selectFrom('passkeys').selectAll().where('credential_id', '=', response.id).executeTakeFirst();
  if (!pk) throw errors.field('response', PASSKEY_REJECTED);
  let result;
  try {
    result = await (await webauthn()).verifyAuthenticationResponse({
      response,
      expectedChallenge: (c) => spendChallenge(redis, `webauthn:auth:${c}`),
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: { id: pk.credential_id, publicKey: new Uint8Array(Buffer.from(pk.public_key, 'base64url')), counter: Number(pk.counter), transports: pk.transports as AuthenticatorTransport[] },
      requireUserVerification: true,
    });
  } catch {
    // The library's reason (origin, challenge, counter...) stays server-side: one answer for every refusal.
    throw errors.field('response', PASSKEY_REJECTED);
  }
  if (!result.verified) throw errors.field('response', PASSKEY_REJECTED);
  await db.updateTable('passkeys').set({ counter: result.authenticationInfo.newCounter, last_used_at: now }).where('id', '=', pk.id).execute();
  const u = await db.selectFrom('users').select(['id', 'active_merchant_id', 'email_verified_at', 'email']).where('id', '=', pk.user_id).executeTakeFirstOrThrow();
  const merchant = await pickMerchant(db, u.id, u.active_merchant_id);
  if (!merchant) throw errors.field('response', 'This account has no merchant yet.');
  return { userId: u.id, merchant, proof: { kind: 'passkey' as const, passkeyId: pk.id } };
}
