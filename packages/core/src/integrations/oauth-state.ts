import { createHmac } from 'node:crypto';
import type Redis from 'ioredis';
import { constantTimeEqual } from '@pos/providers/webhooks/verify';

/**
 * The OAuth `state` of an integration's connect flow: it binds the provider, the merchant and the
 * location the back office started the flow for, expires, is signed (HMAC-SHA256 with
 * `OAUTH_STATE_SECRET`) and is used once (a Redis marker keyed by its nonce until it expires).
 * Format: `<base64url JSON>.<base64url HMAC>`.
 */
export const OAUTH_STATE_TTL_SECONDS = 600;

export interface OAuthStateClaims {
  readonly provider: string;
  readonly merchantId: string;
  readonly locationId: string | null;
  readonly nonce: string;
  /** Expiry, unix seconds. */
  readonly exp: number;
}

const sign = (secret: string, body: string) => createHmac('sha256', secret).update(`oauth-state.${body}`).digest('base64url');

export function mintOAuthState(input: { secret: string; provider: string; merchantId: string; locationId: string | null; now: Date; ttlSeconds?: number }): { state: string; expiresAt: Date } {
  const exp = Math.floor(input.now.getTime() / 1000) + (input.ttlSeconds ?? OAUTH_STATE_TTL_SECONDS);
  const claims: OAuthStateClaims = { provider: input.provider, merchantId: input.merchantId, locationId: input.locationId, nonce: crypto.randomUUID(), exp };
  const body = Buffer.from(JSON.stringify({ p: claims.provider, m: claims.merchantId, l: claims.locationId, n: claims.nonce, exp })).toString('base64url');
  return { state: `${body}.${sign(input.secret, body)}`, expiresAt: new Date(exp * 1000) };
}

export type StateFailure = 'malformed' | 'forged' | 'expired' | 'wrong_provider' | 'used';

/** Checks signature, expiry and provider (no side effect). */
export function readOAuthState(input: { secret: string; state: string; provider: string; now: Date }): { ok: true; claims: OAuthStateClaims } | { ok: false; reason: StateFailure } {
  const m = /^([A-Za-z0-9_-]{10,1000})\.([A-Za-z0-9_-]{43})$/.exec(input.state);
  if (!m) return { ok: false, reason: 'malformed' };
  if (!constantTimeEqual(m[2]!, sign(input.secret, m[1]!))) return { ok: false, reason: 'forged' };
  let c: { p?: unknown; m?: unknown; l?: unknown; n?: unknown; exp?: unknown };
  try {
    c = JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  if (typeof c.p !== 'string' || typeof c.m !== 'string' || typeof c.n !== 'string' || typeof c.exp !== 'number' || (c.l !== null && typeof c.l !== 'string')) return { ok: false, reason: 'malformed' };
  if (c.exp <= Math.floor(input.now.getTime() / 1000)) return { ok: false, reason: 'expired' };
  if (c.p !== input.provider) return { ok: false, reason: 'wrong_provider' };
  return { ok: true, claims: { provider: c.p, merchantId: c.m, locationId: (c.l as string | null) ?? null, nonce: c.n, exp: c.exp } };
}

/** Marks the state used; false when it already was (a replayed callback). */
export async function consumeOAuthState(redis: Redis, claims: OAuthStateClaims, now: Date): Promise<boolean> {
  const ttl = Math.max(1, claims.exp - Math.floor(now.getTime() / 1000));
  return (await redis.set(`oauth_state_used:${claims.nonce}`, '1', 'EX', ttl, 'NX')) === 'OK';
}
