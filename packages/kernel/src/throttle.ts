import type Redis from 'ioredis';

export interface ThrottleRule {
  /** Throttle name (`pos-pin`, `login-idp`, ...), part of the key. */
  readonly name: string;
  readonly limit: number;
  readonly windowSeconds: number;
}

export interface ThrottleResult {
  allowed: boolean;
  count: number;
  limit: number;
  /** Seconds until the window resets. */
  retryAfter: number;
}

/**
 * Fixed-window counter in Redis: one INCR per hit, the key expiring with its window, so the limit
 * holds across API replicas. `subject` is what is limited (client address, device id...).
 */
export async function hitThrottle(redis: Redis, rule: ThrottleRule, subject: string, nowMs: number = Date.now()): Promise<ThrottleResult> {
  const windowMs = rule.windowSeconds * 1000;
  const windowStart = Math.floor(nowMs / windowMs) * windowMs;
  const key = `throttle:${rule.name}:${rule.windowSeconds}:${subject}:${windowStart}`;
  const [[, count]] = (await redis.multi().incr(key).pexpire(key, windowMs + 1000).exec()) as [[Error | null, number]];
  const retryAfter = Math.max(1, Math.ceil((windowStart + windowMs - nowMs) / 1000));
  return { allowed: count <= rule.limit, count, limit: rule.limit, retryAfter };
}
