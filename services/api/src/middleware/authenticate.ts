import type Redis from 'ioredis';
import { errors } from '@pos/kernel';
import type { CentralDb } from '@pos/db';
import { isDeviceType, type Principal } from '@pos/core/auth/principal';
import type { AuthCache } from '@pos/core/auth/auth-cache';
import { findDeviceRegistration, mayActForMerchant } from '@pos/core/auth/auth-records';
import type { TokenService } from '../plugins/tokens.ts';

export type { MerchantRecord } from '@pos/core/auth/auth-records';

/** `Authorization: Bearer <token>` or null; any other scheme counts as no token. */
export function bearerToken(header: string | undefined | null): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1]! : null;
}

export const revokedKey = (jti: string) => `revoked-jti:${jti}`;

/** Revokes one token until it would have expired anyway (logout). */
export async function revokeToken(redis: Redis, jti: string, exp: number): Promise<void> {
  const ttl = Math.max(1, exp - Math.floor(Date.now() / 1000));
  await redis.set(revokedKey(jti), '1', 'EX', ttl);
}

/**
 * `auth`: 401 `Unauthenticated` without a token, 401 `Invalid token` for a bad, expired, revoked or
 * mis-signed one, or one whose subject no longer exists.
 */
export interface AuthDeps {
  db: CentralDb;
  redis: Redis;
  tokens: TokenService;
  /** Device principals are served from it when present (the register's hot path). */
  authCache?: AuthCache;
}

export async function authenticate(deps: AuthDeps, header: string | undefined | null): Promise<Principal> {
  const raw = bearerToken(header);
  if (!raw) throw errors.unauthenticated();
  const principal = await principalFromToken(deps, raw);
  if (!principal) throw errors.invalidToken();
  return principal;
}

/** `auth.optional`: the principal when a valid token is present, null when absent; an invalid one is still 401. */
export async function authenticateOptional(deps: AuthDeps, header: string | undefined | null): Promise<Principal | null> {
  if (!bearerToken(header)) return null;
  return authenticate(deps, header);
}

const PRINCIPAL = 'principal:';

/**
 * A device principal seen within the cache's TTL is served without verifying the signature again, nor
 * asking Redis and PostgreSQL: the raw token is the key, so only the exact string verified before hits.
 * Its expiry is still checked on every use.
 */
async function principalFromToken(deps: AuthDeps, raw: string): Promise<Principal | null> {
  const cache = deps.authCache;
  const merchantId = cache?.tokenMerchant(raw);
  if (merchantId) {
    const hit = cache!.get<Principal>(merchantId, PRINCIPAL + raw);
    if (hit && hit.exp * 1000 > Date.now()) return hit;
  }
  const c = await deps.tokens.verify(raw);
  if (!c) return null;
  const base = { merchantId: c.merchant_id, tenantDatabase: c.tenant_database, jti: c.jti, exp: c.exp };
  if (isDeviceType(c.type)) {
    // The revocation check and the registry read go out together.
    const [revoked, reg] = await Promise.all([deps.redis.exists(revokedKey(c.jti)), findDeviceRegistration(deps.db, c.sub, c.merchant_id)]);
    if (revoked) return null;
    if (!reg || reg.token_version !== c.ver || reg.type !== c.type) return null;
    const principal: Principal = { type: c.type, deviceId: c.sub, ...base };
    cache?.rememberToken(raw, c.merchant_id);
    cache?.set(c.merchant_id, PRINCIPAL + raw, principal);
    return principal;
  }
  if (await deps.redis.exists(revokedKey(c.jti))) return null;
  if (c.type === 'backoffice') {
    if (!(await mayActForMerchant(deps.db, c.sub, c.merchant_id))) return null;
    return { type: 'backoffice', userId: c.sub, ...base };
  }
  return { type: 'customer', customerId: c.sub, ...base };
}
