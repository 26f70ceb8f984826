import { describe, expect, test } from 'bun:test';
import { Semaphore } from './semaphore.ts';

const tick = () => new Promise<void>((r) => setTimeout(r, 1));

describe('Semaphore', () => {
  test('runs at most `limit` at once, the rest in arrival order', async () => {
    const s = new Semaphore(2);
    const started: number[] = [];
    let inFlight = 0;
    let peak = 0;
    const gates: (() => void)[] = [];
    const runs = Array.from({ length: 5 }, (_, i) =>
      s.run(async () => {
        started.push(i);
        peak = Math.max(peak, ++inFlight);
        await new Promise<void>((r) => gates.push(r));
        inFlight--;
        return i * 10;
      }),
    );
    await tick();
    expect(started).toEqual([0, 1]);
    expect([s.active, s.waiting]).toEqual([2, 3]);
    while (started.length < 5 || gates.length) {
      gates.shift()?.();
      await tick();
    }
    expect(await Promise.all(runs)).toEqual([0, 10, 20, 30, 40]);
    expect(started).toEqual([0, 1, 2, 3, 4]);
    expect(peak).toBe(2);
    expect([s.active, s.waiting]).toEqual([0, 0]);
  });

  test('work that throws gives its slot back', async () => {
    const s = new Semaphore(1);
    await expect(s.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await s.run(async () => 'next')).toBe('next');
    expect(s.active).toBe(0);
  });

  test('a limit below one is refused', () => {
    expect(() => new Semaphore(0)).toThrow('semaphore limit must be a positive integer');
    expect(() => new Semaphore(1.5)).toThrow('semaphore limit must be a positive integer');
  });
});
