import type Redis from 'ioredis';
import { deleteMatching } from './redis.ts';

export interface ThrottleRule {
  /** Throttle name (`pos-pin`, `login-idp`, ...), part of the key. */
  readonly name: string;
  readonly limit: number;
  readonly windowSeconds: number;
}

/** The subject's counter under the rule: one key per rule, window and subject. */
const throttleKey = (rule: ThrottleRule, subject: string): string => `throttle:${rule.name}:${rule.windowSeconds}:${subject}`;

/**
 * Deletes every rate-limit counter: for a test that is not about them. Only these keys: a FLUSHDB also
 * took the queues, leases and done markers of whatever else shared the Redis database.
 */
export async function clearThrottles(redis: Redis): Promise<void> {
  await deleteMatching(redis, 'throttle:*');
}

export interface ThrottleResult {
  allowed: boolean;
  count: number;
  limit: number;
  /** Seconds until the window resets. */
  retryAfter: number;
}

/**
 * A window that starts at the subject's first hit (as Laravel's rate limiter counts "N per minute"):
 * one counter per subject in Redis, created with the window's expiry, so the limit holds across API
 * replicas. Not aligned to the clock: an aligned window let 2 x limit attempts through in a second
 * straddling a minute's boundary, and made the count of a burst depend on when it started.
 */
export async function hitThrottle(redis: Redis, rule: ThrottleRule, subject: string): Promise<ThrottleResult> {
  const windowMs = rule.windowSeconds * 1000;
  const key = throttleKey(rule, subject);
  const [, [, count], [, ttl]] = (await redis.multi().set(key, '0', 'PX', windowMs, 'NX').incr(key).pttl(key).exec()) as [unknown, [Error | null, number], [Error | null, number]];
  // A counter without expiry (written by anything else) would never reset: give it this window.
  if (ttl < 0) await redis.pexpire(key, windowMs);
  const retryAfter = Math.max(1, Math.ceil((ttl < 0 ? windowMs : ttl) / 1000));
  return { allowed: count <= rule.limit, count, limit: rule.limit, retryAfter };
}

/**
 * Reserves one of the subject's places under the rule, atomically: for rules that count only some
 * outcomes (a wrong password, an order holding stock). A read before the attempt and a hit after it let
 * every request of a burst read the same low count and all be tried; a reservation taken before the
 * attempt bounds the attempts in flight and counted together by the limit. Refused (nothing counted)
 * once the count reached the limit. `releaseThrottle` gives the place back when the outcome does not count.
 */
export async function reserveThrottle(redis: Redis, rule: ThrottleRule, subject: string): Promise<ThrottleResult> {
  const windowMs = rule.windowSeconds * 1000;
  const [reserved, count, ttl] = (await redis.eval(RESERVE, 1, throttleKey(rule, subject), rule.limit, windowMs)) as [number, number, number];
  return { allowed: reserved === 1, count, limit: rule.limit, retryAfter: Math.max(1, Math.ceil((ttl > 0 ? ttl : windowMs) / 1000)) };
}

/** Gives back a place `reserveThrottle` took; the counter goes when nothing is left in it, so the next window starts afresh. */
export async function releaseThrottle(redis: Redis, rule: ThrottleRule, subject: string): Promise<void> {
  await redis.eval(RELEASE, 1, throttleKey(rule, subject));
}

// Below the limit: count one (the window starts with the first) and answer 1; at or past it: answer 0.
const RESERVE = `
local c = tonumber(redis.call('GET', KEYS[1]) or '0')
if c >= tonumber(ARGV[1]) then return {0, c, redis.call('PTTL', KEYS[1])} end
c = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]); ttl = tonumber(ARGV[2]) end
return {1, c, ttl}`;
const RELEASE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local c = redis.call('DECR', KEYS[1])
if c <= 0 then redis.call('DEL', KEYS[1]) end
return c`;

/** The subject's count in the rule's current window without counting a hit. */
export async function throttleCount(redis: Redis, rule: ThrottleRule, subject: string): Promise<ThrottleResult> {
  const key = throttleKey(rule, subject);
  const [[, raw], [, ttl]] = (await redis.multi().get(key).pttl(key).exec()) as [[Error | null, string | null], [Error | null, number]];
  const count = Number(raw ?? 0);
  return { allowed: count < rule.limit, count, limit: rule.limit, retryAfter: Math.max(1, Math.ceil((ttl > 0 ? ttl : rule.windowSeconds * 1000) / 1000)) };
}
