import type Redis from 'ioredis';
import { errors, type Logger } from '@pos/kernel';
import { acquireLock } from '../webhooks/redis-lock.ts';

/** The answer to a start while another start of the same transaction runs (and did not end within the wait). */
export const PAYMENT_STARTING = 'This payment is already being started. Try again.';

/** How long a start holds its transaction, and how long a second start of it waits (card-b tries three sales). */
const START_LOCK_MS = 30_000;
const START_WAIT_MS = 15_000;

/**
 * Runs `fn` while no start of the transaction runs (`payment_start_{id}`): starts and cancels of one
 * transaction take turns, so a cancel sees every key a start saved and aborts its session. A start
 * still running after the wait answers 409 `payment_starting`.
 */
export async function withPaymentStartLock<T>(deps: { readonly redis: Redis; readonly log: Logger }, transactionId: string, fn: () => Promise<T>): Promise<T> {
  const lock = await acquireLock(deps.redis, `payment_start_${transactionId}`, START_LOCK_MS, START_WAIT_MS, deps.log);
  if (!lock.held) throw errors.conflict(PAYMENT_STARTING, { reason: 'payment_starting' });
  try {
    return await fn();
  } finally {
    await lock.release();
  }
}
