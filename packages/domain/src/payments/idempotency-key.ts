/**
 * Idempotency keys of kiosk payments (spec 3 "Transaction" rule 1): `idemp_{deviceId}_{timestampMs}`.
 * A retry mints a fresh key and folds the old one into `all_idempotency_keys`; a key aborted or
 * cancelled goes to `invalid_idempotency_keys`. After capture the transaction is re-read by its
 * internal id, never by key.
 */
const KEY_RE = /^idemp_([A-Za-z0-9-]{1,64})_([0-9]{13})$/;

export const IDEMPOTENCY_KEY_MAX_LENGTH = 6 + 64 + 1 + 13;

export interface ParsedIdempotencyKey {
  readonly deviceId: string;
  readonly timestampMs: number;
}

/** A key for `deviceId` at `nowMs`; strictly later than `after` (a key of the same device) when given, so two keys never collide. */
export function mintIdempotencyKey(deviceId: string, nowMs: number, after?: string): string {
  if (!/^[A-Za-z0-9-]{1,64}$/.test(deviceId)) throw new TypeError(`Invalid device id for an idempotency key: ${deviceId}`);
  if (!Number.isInteger(nowMs) || nowMs < 1e12 || nowMs >= 1e13) throw new TypeError(`Invalid timestamp for an idempotency key: ${nowMs}`);
  let ts = nowMs;
  const prev = after === undefined ? null : parseIdempotencyKey(after);
  if (prev && prev.deviceId === deviceId && prev.timestampMs >= ts) ts = prev.timestampMs + 1;
  return `idemp_${deviceId}_${ts}`;
}

/** The parts of a well-formed key, or null. */
export function parseIdempotencyKey(key: string): ParsedIdempotencyKey | null {
  const m = KEY_RE.exec(key);
  if (!m) return null;
  return { deviceId: m[1]!, timestampMs: Number(m[2]) };
}

export interface KeyHistory {
  readonly current: string;
  readonly all: readonly string[];
  readonly invalid: readonly string[];
}

/** A retry: `next` becomes current, the history keeps every key once (oldest first). */
export function foldRetryKey(h: KeyHistory, next: string, invalidateCurrent: boolean): KeyHistory {
  if (h.all.includes(next)) throw new TypeError(`Idempotency key reused: ${next}`);
  const all = h.all.includes(h.current) ? [...h.all, next] : [...h.all, h.current, next];
  const invalid = invalidateCurrent && !h.invalid.includes(h.current) ? [...h.invalid, h.current] : [...h.invalid];
  return { current: next, all, invalid };
}

/** Keys a card-b cancel must abort: every key of the history not already invalid (Capture rules 3). */
export function keysToAbort(h: Pick<KeyHistory, 'all' | 'invalid'>): string[] {
  return h.all.filter((k) => !h.invalid.includes(k));
}

/** Name of the Redis lock that guards capture of a key (spec 3 "Capture rules" 1: 20 seconds). */
export const CAPTURE_LOCK_TTL_MS = 20_000;
export const captureLockName = (idempotencyKey: string): string => `payment_capture_${idempotencyKey}`;
