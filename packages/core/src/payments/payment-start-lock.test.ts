import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type Redis from 'ioredis';
import { createRedis, ensureRedis, type Logger } from '@pos/kernel';
import { withPaymentStartLock } from './payment-start-lock.ts';

const warnings: string[] = [];
const log: Logger = { debug: () => {}, info: () => {}, warn: (msg: string) => void warnings.push(msg), error: () => {}, child: () => log };
let redis: Redis;
beforeAll(async () => {
  redis = createRedis(await ensureRedis(process.env.REDIS_URL), 'start-lock-test');
});
afterAll(() => redis.disconnect());

// A lock of 200 ms renewed every 60 ms; a second holder waits up to 5 s.
const timing = { lockMs: 200, renewMs: 60, waitMs: 5_000 };

describe('withPaymentStartLock', () => {
  test('a holder running past the lock time keeps it: the next one starts only after it ends', async () => {
    const id = crypto.randomUUID();
    const events: string[] = [];
    const first = withPaymentStartLock({ redis, log }, id, async () => {
      events.push('first start');
      await Bun.sleep(700);
      events.push('first end');
    }, timing);
    await Bun.sleep(20);
    const second = withPaymentStartLock({ redis, log }, id, async () => {
      events.push('second start');
    }, timing);
    await Promise.all([first, second]);
    expect(events).toEqual(['first start', 'first end', 'second start']);
    expect(await redis.exists(`payment_start_${id}`)).toBe(0);
  });

  test('a lock taken away meanwhile is not renewed over its new holder, and the loss is logged', async () => {
    const id = crypto.randomUUID();
    warnings.length = 0;
    await withPaymentStartLock({ redis, log }, id, async () => {
      await redis.set(`payment_start_${id}`, 'someone else', 'PX', 5_000);
      await Bun.sleep(150);
    }, timing);
    expect(await redis.get(`payment_start_${id}`)).toBe('someone else');
    expect(warnings).toContain('payment start lock could not be renewed');
    await redis.del(`payment_start_${id}`);
  });
});
