import type Redis from 'ioredis';
import type { Logger } from '@pos/kernel';
import { CAPTURE_LOCK_TTL_MS, captureLockName } from '@pos/domain/payments/idempotency-key';

const RELEASE = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;

export interface HeldLock {
  /** False when Redis could not be reached: the caller proceeds on the database row lock alone. */
  readonly held: boolean;
  release(): Promise<void>;
}

/**
 * Capture lock (spec 3 "Capture rules" 1): `payment_capture_{key}` for 20 s. Waits for a holder to
 * finish (up to the lock's lifetime). When Redis is down the capture still runs: the state check under
 * the transaction's row lock keeps it exactly once, so an outage loses nothing.
 */
export async function acquireCaptureLock(redis: Redis, idempotencyKey: string, log: Logger, waitMs = CAPTURE_LOCK_TTL_MS): Promise<HeldLock> {
  const name = captureLockName(idempotencyKey);
  const token = crypto.randomUUID();
  const until = Date.now() + waitMs;
  try {
    for (;;) {
      const ok = await redis.set(name, token, 'PX', CAPTURE_LOCK_TTL_MS, 'NX');
      if (ok === 'OK') {
        return {
          held: true,
          release: async () => {
            await (redis.eval(RELEASE, 1, name, token) as Promise<unknown>).catch((e: unknown) => log.warn('capture lock release failed', { lock: name, err: e }));
          },
        };
      }
      if (Date.now() > until) break;
      await Bun.sleep(10 + Math.floor(Math.random() * 15));
    }
    log.warn('capture lock still held after waiting; continuing on the row lock', { lock: name });
  } catch (e) {
    log.warn('capture lock unavailable (Redis); continuing on the row lock', { lock: name, err: e });
  }
  return { held: false, release: async () => {} };
}
