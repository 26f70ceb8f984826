import type Redis from 'ioredis';

/**
 * Deletes the rate-limit counters (`throttle:*`, packages/kernel/src/throttle.ts) for a test that is not
 * about them. Only those keys: a FLUSHDB also took the queues, leases and done markers of whatever else
 * shared the Redis database (another test file's worker, another run on the same machine).
 */
export async function clearThrottles(redis: Redis, name = ''): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `throttle:${name}*`, 'COUNT', 1000);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}
