import type Redis from 'ioredis';
import type { Logger } from '@pos/kernel';

/**
 * A dispatched capture is held for at most this long: the capture lock's 20 s (spec 3 section 8), after
 * which a job that never ran (worker away) no longer keeps the next poll from dispatching another.
 */
export const CAPTURE_DISPATCH_HOLD_MS = 20_000;

const keyOf = (tenantDatabase: string, transactionId: string) => `payment_capture_dispatch_${tenantDatabase}_${transactionId}`;

/**
 * True when this caller may dispatch the transaction's `payment.capture` job: none is in flight. The
 * kiosk polls the details route every few seconds while the customer pays; without this each poll
 * queued its own job and each job asked the provider, so polls multiplied provider calls. Redis away:
 * true (a duplicate job is harmless, capture is exactly once; a missing one would leave it unpaid).
 */
export async function claimCaptureDispatch(redis: Redis, log: Logger, tenantDatabase: string, transactionId: string): Promise<boolean> {
  try {
    return (await redis.set(keyOf(tenantDatabase, transactionId), '1', 'PX', CAPTURE_DISPATCH_HOLD_MS, 'NX')) === 'OK';
  } catch (e) {
    log.warn('capture dispatch marker not written; dispatching anyway', { transaction_id: transactionId, err: e });
    return true;
  }
}

/** The capture job ran (or its dispatch failed): the next poll may dispatch again. */
export async function releaseCaptureDispatch(redis: Redis, log: Logger, tenantDatabase: string, transactionId: string): Promise<void> {
  await redis.del(keyOf(tenantDatabase, transactionId)).catch((e: unknown) => log.warn('capture dispatch marker not removed', { transaction_id: transactionId, err: e }));
}
