import { errors } from '@pos/kernel';
import type Redis from 'ioredis';

/** Redis key marking a token id as revoked. */
export const revokedKey = (jti: string) => `revoked-jti:${jti}`;

/** Revokes one token until it would have expired anyway (logout). */
export async function revokeToken(redis: Redis, jti: string, exp: number): Promise<void> {
  const ttl = Math.max(1, exp - Math.floor(Date.now() / 1000));
  await redis.set(revokedKey(jti), '1', 'EX', ttl);
}

/** True when the token id was revoked. */
export async function isRevoked(redis: Redis, jti: string): Promise<boolean> {
  return (await redis.exists(revokedKey(jti))) > 0;
}

/** Redis key holding the time (ms) before which every back-office token of a user is void. */
export const sessionsEndedKey = (userId: string) => `sessions-ended:${userId}`;

/**
 * When a token was issued, to the millisecond: its `jti` is a UUIDv7 (its first 48 bits are the
 * time). A token signed before jtis were v7 falls back on `iat` (seconds).
 */
export function issuedAtMs(c: { jti: string; iat?: number }): number {
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-7/i.test(c.jti)) return parseInt(c.jti.slice(0, 8) + c.jti.slice(9, 13), 16);
  return (typeof c.iat === 'number' ? c.iat : 0) * 1000;
}

/**
 * Ends every back-office session of a user issued until now (a password reset): tokens issued up to
 * this millisecond are refused, kept for as long as such a token could live.
 */
export async function endUserSessions(redis: Redis, userId: string, lifetimeSeconds: number): Promise<void> {
  await redis.set(sessionsEndedKey(userId), String(Date.now()), 'EX', lifetimeSeconds);
}

/** True when the token was revoked on its own (logout) or belongs to sessions its user ended. */
export async function isRevokedSession(redis: Redis, c: { jti: string; iat?: number; sub: string }): Promise<boolean> {
  const [revoked, endedAt] = await redis.mget(revokedKey(c.jti), sessionsEndedKey(c.sub));
  return revoked !== null || (endedAt !== null && issuedAtMs(c) <= Number(endedAt));
}

/**
 * Throws 401 `Invalid token` when the back-office session a request was authenticated with has ended
 * since (a password reset while the request ran). For what a request creates from its session after its
 * own checks (a merchant switch's new token, a passkey): authentication read the session once, at the
 * start, so without this a reset landing meanwhile missed what the request went on to create.
 */
export async function assertSessionLive(redis: Redis, session: { userId: string; jti: string }): Promise<void> {
  if (await isRevokedSession(redis, { jti: session.jti, sub: session.userId })) throw errors.invalidToken();
}
