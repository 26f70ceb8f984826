import { afterAll, describe, expect, test } from 'bun:test';
import { createRedis } from './redis.ts';
import { hitThrottle } from './throttle.ts';

const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'throttle-test');
afterAll(() => redis.disconnect());

describe('fixed-window throttle in Redis', () => {
  test('allows up to the limit in a window, refuses beyond, resets in the next window', async () => {
    const rule = { name: 'test', limit: 3, windowSeconds: 60 };
    const subject = crypto.randomUUID();
    const t0 = 1_800_000_000_000 - (1_800_000_000_000 % 60_000) + 10_000;
    const seen = [];
    for (let i = 0; i < 4; i++) seen.push((await hitThrottle(redis, rule, subject, t0)).allowed);
    expect(seen).toEqual([true, true, true, false]);
    const r = await hitThrottle(redis, rule, subject, t0);
    expect(r.retryAfter).toBe(50);
    expect((await hitThrottle(redis, rule, subject, t0 + 60_000)).allowed).toBe(true);
  });
});
