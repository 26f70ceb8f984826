/**
 * What a stored provider event may show a person (the back office's webhook log): a provider's JSON is
 * shown as received except values under keys that carry secrets or card data, which read `[redacted]`.
 * Keys are compared lower case without `_` and `-` (`client_secret`, `ClientSecret`, `card-number` alike).
 * Brand, last four digits, amounts and ids stay: they are what a person needs to match an event.
 */
export const REDACTED = '[redacted]';

/** Exact keys: card data (number, verification code, expiry, track data, fingerprint) and single-word secrets. */
const EXACT = new Set([
  'pan',
  'cvc',
  'cvc2',
  'cvv',
  'cvv2',
  'cvn',
  'securitycode',
  'expmonth',
  'expyear',
  'expiry',
  'expirydate',
  'expirationdate',
  'cardexpirationdate',
  'cardexpiry',
  'track1',
  'track2',
  'trackdata',
  'fingerprint',
  'password',
  'passwd',
  'pin',
  'apikey',
  'authorization',
]);
/** Key parts: any key containing one of these (`client_secret`, `webhook_secret`, `access_token`, `card_number`, `signing_key`). */
const PARTS = ['secret', 'token', 'cardnumber', 'signature', 'signingkey', 'privatekey', 'password'];

export function isSensitiveKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[_-]/g, '');
  return EXACT.has(k) || PARTS.some((p) => k.includes(p));
}

/** A copy of `value` with every sensitive key's value replaced (at any depth, arrays included). */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth > 64 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redactSecrets(v, depth + 1));
  const out: Record<string, unknown> = {};
  // Defined, not assigned: a provider's `"__proto__"` member (an own key after JSON.parse) stays a member of the copy.
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    Object.defineProperty(out, k, { value: isSensitiveKey(k) && v !== null && v !== undefined ? REDACTED : redactSecrets(v, depth + 1), enumerable: true, writable: true, configurable: true });
  }
  return out;
}
