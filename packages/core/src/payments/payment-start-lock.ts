import type Redis from 'ioredis';
import { errors, type Logger } from '@pos/kernel';
import { acquireLock } from '../webhooks/redis-lock.ts';

/** The answer to a start while another start of the same transaction runs (and did not end within the wait). */
export const PAYMENT_STARTING = 'This payment is already being started. Try again.';

/**
 * How long a start holds its transaction without renewal, and how long a second start of it waits. A
 * start can run longer than the lock (card-b: three sales and a poll at up to 15 s each), so the
 * holder renews it every `START_RENEW_MS` while it runs; a crashed holder frees it within `START_LOCK_MS`.
 */
const START_LOCK_MS = 30_000;
const START_RENEW_MS = 10_000;
const START_WAIT_MS = 15_000;

/**
 * Runs `fn` while no start of the transaction runs (`payment_start_{id}`): starts and cancels of one
 * transaction take turns, so a cancel sees every key a start saved and aborts its session. A start
 * still running after the wait answers 409 `payment_starting`. The lock is renewed while `fn` runs.
 */
export async function withPaymentStartLock<T>(
  deps: { readonly redis: Redis; readonly log: Logger },
  transactionId: string,
  fn: () => Promise<T>,
  timing: { lockMs: number; renewMs: number; waitMs: number } = { lockMs: START_LOCK_MS, renewMs: START_RENEW_MS, waitMs: START_WAIT_MS },
): Promise<T> {
  const lock = await acquireLock(deps.redis, `payment_start_${transactionId}`, timing.lockMs, timing.waitMs, deps.log);
  if (!lock.held) throw errors.conflict(PAYMENT_STARTING, { reason: 'payment_starting' });
  // Renewed while `fn` runs: a cancel that took over an expired lock would abort sessions not yet made
  // and mark the order Cancelled while this start's sale was still on its way to the terminal.
  const renewal = setInterval(() => {
    void lock.renew(timing.lockMs).then((ok) => {
      if (!ok) deps.log.warn('payment start lock could not be renewed', { transaction_id: transactionId });
    });
  }, timing.renewMs);
  try {
    return await fn();
  } finally {
    clearInterval(renewal);
    await lock.release();
  }
}
