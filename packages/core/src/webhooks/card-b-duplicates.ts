import { createHash } from 'node:crypto';
import type Redis from 'ioredis';
import type { Logger } from '@pos/kernel';
import { acquireLock } from './redis-lock.ts';

/** card-b rule 3 (spec 3 section 8): lock 60 s, duplicate within 30 s, recent data kept 5 minutes. */
export const CARD_B_DUPLICATE_LOCK_MS = 60_000;
export const CARD_B_DUPLICATE_WINDOW_MS = 30_000;
export const CARD_B_RECENT_TTL_SECONDS = 300;

/** The seven fields duplicate detection hashes, in the spec's order. */
export function cardBDuplicateHash(data: Record<string, unknown>): string {
  const tags = Array.isArray(data.Tags) ? data.Tags : [];
  const fields = [data.OrderCode, data.CustomerTrns, data.TransactionTypeId, data.Amount, data.StatusId, tags[0], data.MerchantTrns];
  return createHash('sha256').update(JSON.stringify(fields.map((v) => (v === undefined ? null : v)))).digest('hex');
}

/**
 * True when an identical event (same seven fields) was processed within the last 30 s. Checked and
 * recorded under a 60 s lock on the hash, so of concurrent identical deliveries exactly one is new.
 * The record is made before processing (so a concurrent twin is a duplicate); a delivery whose
 * processing then fails takes it back (`forgetCardBDelivery`): only a processed event counts.
 */
export async function isCardBDuplicate(redis: Redis, log: Logger, hash: string, nowMs: number): Promise<boolean> {
  const lock = await acquireLock(redis, `card_b_webhook_lock_${hash}`, CARD_B_DUPLICATE_LOCK_MS, 5_000, log);
  try {
    const key = `card_b_webhook_recent_${hash}`;
    const seen = await redis.get(key).catch(() => null);
    if (seen !== null && nowMs - Number(seen) < CARD_B_DUPLICATE_WINDOW_MS) return true;
    await redis.set(key, String(nowMs), 'EX', CARD_B_RECENT_TTL_SECONDS).catch((e: unknown) => log.warn('card-b duplicate marker not written', { err: e }));
    return false;
  } finally {
    await lock.release();
  }
}

/**
 * A delivery marked by `isCardBDuplicate` whose processing failed (the database away, say): its mark is
 * removed, so the same event sent again is processed instead of being dropped as a duplicate of one
 * that never was. Only the mark this delivery wrote (a later one is another delivery's).
 */
export async function forgetCardBDelivery(redis: Redis, log: Logger, hash: string, markedAtMs: number): Promise<void> {
  const key = `card_b_webhook_recent_${hash}`;
  await redis
    .eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0", 1, key, String(markedAtMs))
    .catch((e: unknown) => log.warn('card-b duplicate marker not removed', { err: e }));
}
