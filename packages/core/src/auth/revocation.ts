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
