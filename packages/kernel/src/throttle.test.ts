import { afterAll, describe, expect, test } from 'bun:test';
import { createRedis } from './redis.ts';
import { hitThrottle } from './throttle.ts';

const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'throttle-test');
afterAll(() => redis.disconnect());

describe('throttle in Redis, a window from the first hit', () => {
  test('allows up to the limit in a window, refuses beyond, resets when the window from the first hit ends', async () => {
    const rule = { name: 'test', limit: 3, windowSeconds: 1 };
    const subject = crypto.randomUUID();
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push((await hitThrottle(redis, rule, subject)).allowed);
    expect(seen).toEqual([true, true, true, false]);
    const r = await hitThrottle(redis, rule, subject);
    expect(r).toEqual({ allowed: false, count: 5, limit: 3, retryAfter: 1 });
    await Bun.sleep(1100);
    expect(await hitThrottle(redis, rule, subject)).toEqual({ allowed: true, count: 1, limit: 3, retryAfter: 1 });
  });

  test('the window is not aligned to the clock: a burst counts whole whenever it starts', async () => {
    const rule = { name: 'test', limit: 10, windowSeconds: 60 };
    const subject = crypto.randomUUID();
    const first = await hitThrottle(redis, rule, subject);
    expect(first.retryAfter).toBe(60);
    const key = `throttle:test:60:${subject}`;
    // Whatever second of the minute this runs in, the counter lives the whole window from the first hit.
    expect(await redis.pttl(key)).toBeGreaterThan(59_000);
    for (let i = 0; i < 9; i++) await hitThrottle(redis, rule, subject);
    expect((await hitThrottle(redis, rule, subject)).allowed).toBe(false);
  });

  test('a counter left without expiry gets the window instead of refusing for ever', async () => {
    const rule = { name: 'test', limit: 2, windowSeconds: 30 };
    const subject = crypto.randomUUID();
    const key = `throttle:test:30:${subject}`;
    await redis.set(key, '5');
    expect((await hitThrottle(redis, rule, subject)).allowed).toBe(false);
    const ttl = await redis.pttl(key);
    expect(ttl).toBeGreaterThan(29_000);
    expect(ttl).toBeLessThanOrEqual(30_000);
  });
});
