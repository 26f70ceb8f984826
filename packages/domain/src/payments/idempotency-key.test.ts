import { describe, expect, test } from 'bun:test';
import { captureLockName, foldRetryKey, keysToAbort, mintIdempotencyKey, parseIdempotencyKey, type KeyHistory } from './idempotency-key.ts';

const DEV = '0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';
const T = 1_795_000_000_000;

describe('idempotency keys', () => {
  test('format idemp_{deviceId}_{timestampMs}, parsed back', () => {
    const k = mintIdempotencyKey(DEV, T);
    expect(k).toBe(`idemp_${DEV}_${T}`);
    expect(parseIdempotencyKey(k)).toEqual({ deviceId: DEV, timestampMs: T });
  });
  test('a retry in the same millisecond gets a later key, never the same one', () => {
    const a = mintIdempotencyKey(DEV, T);
    const b = mintIdempotencyKey(DEV, T, a);
    expect(b).toBe(`idemp_${DEV}_${T + 1}`);
    expect(mintIdempotencyKey(DEV, T - 5, b)).toBe(`idemp_${DEV}_${T + 2}`);
    expect(mintIdempotencyKey(DEV, T + 10, b)).toBe(`idemp_${DEV}_${T + 10}`);
  });
  test('malformed keys and inputs are refused', () => {
    for (const bad of ['', 'idemp__1795000000000', `idemp_${DEV}_123`, `IDEMP_${DEV}_${T}`, `idemp_${DEV}_${T}x`, `idemp_a b_${T}`, `idemp_${DEV}_${T}_1`]) {
      expect(parseIdempotencyKey(bad)).toBeNull();
    }
    expect(() => mintIdempotencyKey('a_b', T)).toThrow(/Invalid device id/);
    expect(() => mintIdempotencyKey(DEV, 12)).toThrow(/Invalid timestamp/);
  });
  test('a retry folds the old key into the history; cancelled keys are invalid; abort takes the rest', () => {
    const k1 = mintIdempotencyKey(DEV, T);
    const k2 = mintIdempotencyKey(DEV, T + 1000);
    const k3 = mintIdempotencyKey(DEV, T + 2000);
    let h: KeyHistory = { current: k1, all: [k1], invalid: [] };
    h = foldRetryKey(h, k2, false);
    expect(h).toEqual({ current: k2, all: [k1, k2], invalid: [] });
    h = foldRetryKey(h, k3, true);
    expect(h).toEqual({ current: k3, all: [k1, k2, k3], invalid: [k2] });
    expect(keysToAbort(h)).toEqual([k1, k3]);
    expect(() => foldRetryKey(h, k1, false)).toThrow(/reused/);
    // a history that did not hold its current key yet gains it
    expect(foldRetryKey({ current: k1, all: [], invalid: [] }, k2, false).all).toEqual([k1, k2]);
  });
  test('capture lock name comes from the key', () => {
    expect(captureLockName(`idemp_${DEV}_${T}`)).toBe(`payment_capture_idemp_${DEV}_${T}`);
  });
});
