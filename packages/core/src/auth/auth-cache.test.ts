import { describe, expect, test } from 'bun:test';
import { AuthCache } from './auth-cache.ts';

describe('AuthCache', () => {
  test('serves an entry until its TTL ends', () => {
    let now = 1000;
    const c = new AuthCache({ ttlMs: 500, now: () => now });
    c.set('m1', 'k', { a: 1 });
    expect(c.get('m1', 'k')).toEqual({ a: 1 });
    now = 1499;
    expect(c.get('m1', 'k')).toEqual({ a: 1 });
    now = 1500;
    expect(c.get('m1', 'k')).toBeUndefined();
  });

  test("invalidating a merchant drops all of its entries and tokens, and only its own", () => {
    const c = new AuthCache({ ttlMs: 10_000 });
    c.set('m1', 'a', 1);
    c.set('m1', 'b', 2);
    c.set('m2', 'a', 3);
    c.rememberToken('t1', 'm1');
    c.rememberToken('t2', 'm2');
    c.invalidate('m1');
    expect(c.get('m1', 'a')).toBeUndefined();
    expect(c.get('m1', 'b')).toBeUndefined();
    expect(c.tokenMerchant('t1')).toBeUndefined();
    expect(c.get('m2', 'a')).toBe(3);
    expect(c.tokenMerchant('t2')).toBe('m2');
    c.invalidate(null);
    expect(c.get('m2', 'a')).toBeUndefined();
  });

  test('while invalidations cannot arrive, nothing is served or stored', () => {
    const c = new AuthCache({ ttlMs: 10_000 });
    c.set('m1', 'a', 1);
    c.setLive(false);
    expect(c.get('m1', 'a')).toBeUndefined();
    c.set('m1', 'a', 2);
    c.setLive(true);
    expect(c.get('m1', 'a')).toBeUndefined();
  });

  test('a TTL of 0 turns it off', () => {
    const c = new AuthCache({ ttlMs: 0 });
    c.set('m1', 'a', 1);
    expect(c.get('m1', 'a')).toBeUndefined();
  });

  test('a merchant over the entry bound starts afresh', () => {
    const c = new AuthCache({ ttlMs: 10_000, maxPerMerchant: 2 });
    c.set('m1', 'a', 1);
    c.set('m1', 'b', 2);
    c.set('m1', 'c', 3);
    expect(c.get('m1', 'a')).toBeUndefined();
    expect(c.get('m1', 'c')).toBe(3);
  });
});
