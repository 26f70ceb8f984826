import { describe, expect, test } from 'bun:test';
import { KeyedQueue } from './keyed-queue.ts';

describe('KeyedQueue', () => {
  test('one key runs one at a time in arrival order; other keys are not held up; a failure releases the key', async () => {
    const q = new KeyedQueue();
    const log: string[] = [];
    const job = (key: string, name: string, ms: number, fail = false) =>
      q.run(key, async () => {
        log.push(`start ${name}`);
        await Bun.sleep(ms);
        log.push(`end ${name}`);
        if (fail) throw new Error(name);
        return name;
      });
    const results = await Promise.allSettled([job('a', 'a1', 30, true), job('a', 'a2', 5), job('b', 'b1', 5)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'fulfilled', 'fulfilled']);
    expect(log.indexOf('end a1')).toBeLessThan(log.indexOf('start a2'));
    expect(log.indexOf('end b1')).toBeLessThan(log.indexOf('end a1'));
  });
});
