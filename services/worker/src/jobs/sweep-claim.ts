import type Redis from 'ioredis';

/**
 * A sweep's claim on one item for `ms` (a Redis key set only if absent): an item claimed lately is left
 * for a later sweep. Without Redis (absent, or away) every item is claimed: the sweeps' work is safe to
 * do twice, only wasteful.
 */
export async function claimFor(redis: Redis | undefined, key: string, ms: number): Promise<boolean> {
  if (!redis) return true;
  try {
    return (await redis.set(key, '1', 'PX', ms, 'NX')) === 'OK';
  } catch {
    return true;
  }
}
