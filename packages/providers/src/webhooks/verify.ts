import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook verifiers (spec 3 sections 4-5, PROTOCOLS.md): one pure function per mechanism. Each works
 * on the raw bytes received (never re-serialised JSON), compares in constant time and answers why a
 * request failed, so the route can count the outcome without revealing it to the caller.
 */

export type VerifyFailure = 'missing' | 'malformed' | 'stale' | 'mismatch';
export type VerifyResult = { ok: true } | { ok: false; reason: VerifyFailure };

const OK: VerifyResult = { ok: true };
const fail = (reason: VerifyFailure): VerifyResult => ({ ok: false, reason });

export type RawBody = string | Uint8Array;

/**
 * Constant-time equality of two strings of any length: both are hashed to 32 bytes first, so neither
 * the position of the first difference nor the length of the expected value leaks through timing.
 */
export function constantTimeEqual(a: string | Uint8Array, b: string | Uint8Array): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb) && Buffer.byteLength(a as string) === Buffer.byteLength(b as string);
}

const hmac = (key: string | Uint8Array, ...parts: RawBody[]) => {
  const h = createHmac('sha256', key);
  for (const p of parts) h.update(p);
  return h.digest();
};

/** Default tolerance of card-a signatures: timestamps older than this are refused. */
export const CARD_A_TOLERANCE_SECONDS = 300;

/**
 * card-a: header `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`; HMAC-SHA256 with the endpoint secret over
 * `"{t}.{raw body}"`. Any `v1` may match; a timestamp older than `toleranceSeconds` is `stale` (as is
 * one more than the tolerance in the future, a clock that far ahead is not believed either).
 */
export function verifyCardASignature(input: {
  header: string | null | undefined;
  rawBody: RawBody;
  secret: string;
  nowSeconds: number;
  toleranceSeconds?: number;
}): VerifyResult {
  if (!input.header) return fail('missing');
  if (!input.secret) return fail('mismatch');
  let t: string | null = null;
  const v1: string[] = [];
  for (const part of input.header.split(',')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const k = part.slice(0, eq).trim();
    const v = part.slice(eq + 1).trim();
    if (k === 't') t = v;
    else if (k === 'v1') v1.push(v);
  }
  if (t === null || !/^\d{1,12}$/.test(t) || v1.length === 0) return fail('malformed');
  const tolerance = input.toleranceSeconds ?? CARD_A_TOLERANCE_SECONDS;
  if (Math.abs(input.nowSeconds - Number(t)) > tolerance) return fail('stale');
  const expected = hmac(input.secret, `${t}.`, input.rawBody).toString('hex');
  // Every candidate is compared, so the time taken does not depend on which one matched.
  let matched = false;
  for (const candidate of v1) matched = constantTimeEqual(candidate.toLowerCase(), expected) || matched;
  return matched ? OK : fail('mismatch');
}

/** card-a's header for a body (the simulators and tests sign with it). */
export function signCardA(secret: string, rawBody: RawBody, timestamp: number): string {
  return `t=${timestamp},v1=${hmac(secret, `${timestamp}.`, rawBody).toString('hex')}`;
}

/**
 * platform-a: `x-platform-a-hmacsha256-signature` = base64(HMAC-SHA256(signature key, notification URL +
 * raw body)); the URL must be the subscription URL exactly.
 */
export function verifyUrlBodyHmacBase64(input: { signature: string | null | undefined; notificationUrl: string; rawBody: RawBody; key: string }): VerifyResult {
  if (!input.signature) return fail('missing');
  if (!input.key) return fail('mismatch');
  const expected = hmac(input.key, input.notificationUrl, input.rawBody).toString('base64');
  return constantTimeEqual(input.signature.trim(), expected) ? OK : fail('mismatch');
}

export function signUrlBodyHmacBase64(key: string, notificationUrl: string, rawBody: RawBody): string {
  return hmac(key, notificationUrl, rawBody).toString('base64');
}

/**
 * HMAC-SHA256 over the raw body (shop-a, delivery-a, delivery-b, register-a, register-b). The digest is
 * hex (optionally written `sha256=<hex>`) or base64 as the provider sends it.
 */
export function verifyBodyHmac(input: { signature: string | null | undefined; rawBody: RawBody; secret: string; encoding: 'hex' | 'base64' }): VerifyResult {
  if (!input.signature) return fail('missing');
  if (!input.secret) return fail('mismatch');
  let given = input.signature.trim();
  if (input.encoding === 'hex') {
    if (given.toLowerCase().startsWith('sha256=')) given = given.slice(7);
    given = given.toLowerCase();
  }
  const expected = hmac(input.secret, input.rawBody).toString(input.encoding);
  return constantTimeEqual(given, expected) ? OK : fail('mismatch');
}

export function signBodyHmac(secret: string, rawBody: RawBody, encoding: 'hex' | 'base64'): string {
  return hmac(secret, rawBody).toString(encoding);
}

/** HTTP Basic (register-c): `Authorization: Basic base64(user:password)`, both parts compared in constant time. */
export function verifyBasicAuth(input: { authorization: string | null | undefined; username: string; password: string }): VerifyResult {
  if (!input.authorization) return fail('missing');
  if (!input.username || !input.password) return fail('mismatch');
  const m = /^Basic\s+([A-Za-z0-9+/=]{1,1024})$/i.exec(input.authorization.trim());
  if (!m) return fail('malformed');
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return fail('malformed');
  const userOk = constantTimeEqual(decoded.slice(0, colon), input.username);
  const passOk = constantTimeEqual(decoded.slice(colon + 1), input.password);
  return userOk && passOk ? OK : fail('mismatch');
}

/** A shared bearer token (CRM intake): `Authorization: Bearer <token>`, compared in constant time. */
export function verifyBearerToken(input: { authorization: string | null | undefined; token: string }): VerifyResult {
  if (!input.authorization) return fail('missing');
  if (!input.token) return fail('mismatch');
  const m = /^Bearer\s+(\S{1,4096})$/i.exec(input.authorization.trim());
  if (!m) return fail('malformed');
  return constantTimeEqual(m[1]!, input.token) ? OK : fail('mismatch');
}
