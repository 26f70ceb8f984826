import { afterAll, describe, expect, test } from 'bun:test';
import { createRedis, throttleCount, type ThrottleRule } from '@pos/kernel';
import { countFailures, failureThrottle } from './throttle.ts';

const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'failure-throttle-test');
afterAll(() => redis.disconnect());

const wrong = new Error('wrong');
const isWrong = (e: unknown) => e === wrong;
const rule = (): ThrottleRule => ({ name: `failures-${crypto.randomUUID().slice(0, 8)}`, limit: 3, windowSeconds: 60 });

describe('failureThrottle: only some outcomes count, attempts at once included', () => {
  test('attempts running at once hold places: of ten slow wrong attempts sent together, three are tried and seven refused before trying', async () => {
    const r = rule();
    let tried = 0;
    const attempt = async () => {
      tried++;
      await Bun.sleep(50);
      throw wrong;
    };
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => countFailures(redis, 'test', r, 'subject', isWrong, attempt)));
    // Before: each read the count (0) before any failure was counted, and all ten were tried.
    expect(tried).toBe(3);
    expect(outcomes.map((o) => (o.status === 'rejected' && o.reason === wrong ? 'tried' : (o as PromiseRejectedResult).reason?.code))).toEqual([
      'tried', 'tried', 'tried', 'throttled', 'throttled', 'throttled', 'throttled', 'throttled', 'throttled', 'throttled',
    ]);
    expect((await throttleCount(redis, r, 'subject')).count).toBe(3);
  });

  test('an outcome that does not count gives its place back, and the counter goes when it is empty', async () => {
    const r = rule();
    expect(await countFailures(redis, 'test', r, 's', isWrong, async () => 'ok')).toBe('ok');
    await expect(countFailures(redis, 'test', r, 's', isWrong, async () => { throw new Error('other'); })).rejects.toThrow('other');
    expect(await redis.exists(`throttle:${r.name}:60:s`)).toBe(0);
    await expect(countFailures(redis, 'test', r, 's', isWrong, async () => { throw wrong; })).rejects.toBe(wrong);
    await expect(countFailures(redis, 'test', r, 's', isWrong, async () => 'ok')).resolves.toBe('ok');
    expect((await throttleCount(redis, r, 's')).count).toBe(1);
  });

  test('once the failures reach the limit every attempt is refused, a right one included, with the window\'s retry_after', async () => {
    const r = rule();
    for (let i = 0; i < 3; i++) await expect(countFailures(redis, 'test', r, 's', isWrong, async () => { throw wrong; })).rejects.toBe(wrong);
    const refused = await countFailures(redis, 'test', r, 's', isWrong, async () => 'ok').catch((e: unknown) => e as { code: string; status: number; extra: { retry_after: number } });
    expect(refused).toMatchObject({ code: 'throttled', extra: { retry_after: 60 } });
    // A refusal counts nothing: the count stays at the limit.
    expect((await throttleCount(redis, r, 's')).count).toBe(3);
  });

  test('a place given back twice is given back once; a counter that expired meanwhile is not made negative', async () => {
    const r = rule();
    await countFailures(redis, 'test', r, 's', isWrong, async () => { throw wrong; }).catch(() => undefined);
    const place = await failureThrottle(redis, 'test', r, 's');
    await place.release();
    await place.release();
    expect((await throttleCount(redis, r, 's')).count).toBe(1);
    const late = await failureThrottle(redis, 'test', r, 'other');
    await redis.del(`throttle:${r.name}:60:other`);
    await late.release();
    expect(await redis.exists(`throttle:${r.name}:60:other`)).toBe(0);
  });

  test('off in the local environment', async () => {
    const r = rule();
    for (let i = 0; i < 5; i++) await expect(countFailures(redis, 'local', r, 's', isWrong, async () => { throw wrong; })).rejects.toBe(wrong);
    expect(await redis.exists(`throttle:${r.name}:60:s`)).toBe(0);
  });
});
