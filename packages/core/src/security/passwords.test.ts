import { describe, expect, test } from 'bun:test';
import { argon2Slots, hashSecret, verifySecret } from './passwords.ts';

describe('argon2id secrets', () => {
  test('a burst of hashes runs a few at a time, and every one verifies', async () => {
    const n = argon2Slots.limit + 4;
    const plains = Array.from({ length: n }, (_, i) => `secret-${i}`);
    const hashes = plains.map((p) => hashSecret(p));
    // The first `limit` took the slots at once; the others wait their turn.
    expect(argon2Slots.active).toBe(argon2Slots.limit);
    expect(argon2Slots.waiting).toBe(4);
    const done = await Promise.all(hashes);
    expect(done.every((h) => h.startsWith('$argon2id$v=19$m=19456,t=2,p=1$'))).toBe(true);
    expect(await Promise.all(plains.map((p, i) => verifySecret(p, done[i]!)))).toEqual(plains.map(() => true));
    expect(await verifySecret('wrong', done[0]!)).toBe(false);
    expect([argon2Slots.active, argon2Slots.waiting]).toEqual([0, 0]);
  });

  test('a malformed hash verifies as false and gives its slot back', async () => {
    expect(await verifySecret('x', 'not-a-hash')).toBe(false);
    expect(argon2Slots.active).toBe(0);
  });
});
