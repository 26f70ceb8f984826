import type Redis from 'ioredis';
import type { Logger } from '@pos/kernel';

const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
const RENEW = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;

export interface WebhookLock {
  readonly held: boolean;
  release(): Promise<void>;
  /** Sets the lock's time to live to `ttlMs` again; false when it is no longer ours (expired, taken) or Redis is away. */
  renew(ttlMs: number): Promise<boolean>;
}

/**
 * A named Redis lock for `ttlMs`, waited for up to `waitMs`. When Redis cannot be reached the caller
 * goes on (`held: false`): the database state checks under row locks keep the effects exactly once.
 */
export async function acquireLock(redis: Redis, name: string, ttlMs: number, waitMs: number, log: Logger): Promise<WebhookLock> {
  const token = crypto.randomUUID();
  const until = Date.now() + waitMs;
  try {
    for (;;) {
      if ((await redis.set(name, token, 'PX', ttlMs, 'NX')) === 'OK') {
        return {
          held: true,
          release: async () => {
            await (redis.eval(RELEASE, 1, name, token) as Promise<unknown>).catch((e: unknown) => log.warn('webhook lock release failed', { lock: name, err: e }));
          },
          renew: async (ms: number) => ((await (redis.eval(RENEW, 1, name, token, String(ms)) as Promise<unknown>).catch(() => 0)) as number) === 1,
        };
      }
      if (Date.now() > until) break;
      await Bun.sleep(10 + Math.floor(Math.random() * 15));
    }
    log.warn('webhook lock still held after waiting; continuing', { lock: name });
  } catch (e) {
    log.warn('webhook lock unavailable (Redis); continuing', { lock: name, err: e });
  }
  return { held: false, release: async () => {}, renew: async () => false };
}
