import type Redis from 'ioredis';
import { errors } from '@pos/kernel';
import type { CentralDb } from '@pos/db';
import { isDeviceType, type Principal, type TokenService } from './principal.ts';
import type { AuthCache } from './auth-cache.ts';
import { findDeviceRegistration, mayActForMerchant } from './auth-records.ts';
import { isRevoked, isRevokedSession } from './revocation.ts';

/** What resolving a token reads: the central database, Redis (revocations) and the token verifier. */
export interface TokenAuthDeps {
  readonly db: CentralDb;
  readonly redis: Redis;
  readonly tokens: Pick<TokenService, 'verify'>;
  /** Device principals are served from it when present (the register's hot path). */
  readonly authCache?: AuthCache;
}

/**
 * `auth`: the principal behind a raw token. 401 `Unauthenticated` without a token, 401 `Invalid token`
 * for a bad, expired, revoked or mis-signed one, or one whose subject no longer exists.
 */
export async function authenticateToken(deps: TokenAuthDeps, raw: string | null): Promise<Principal> {
  if (!raw) throw errors.unauthenticated();
  const principal = await principalFromToken(deps, raw);
  if (!principal) throw errors.invalidToken();
  return principal;
}

const PRINCIPAL = 'principal:';

/**
 * A device principal seen within the cache's TTL is served without verifying the signature again, nor
 * asking Redis and PostgreSQL: the raw token is the key, so only the exact string verified before hits.
 * Its expiry is still checked on every use.
 */
async function principalFromToken(deps: TokenAuthDeps, raw: string): Promise<Principal | null> {
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
    const [revoked, reg] = await Promise.all([isRevoked(deps.redis, c.jti), findDeviceRegistration(deps.db, c.sub, c.merchant_id)]);
    if (revoked) return null;
    if (!reg || reg.token_version !== c.ver || reg.type !== c.type) return null;
    const principal: Principal = { type: c.type, deviceId: c.sub, ...base };
    cache?.rememberToken(raw, c.merchant_id);
    cache?.set(c.merchant_id, PRINCIPAL + raw, principal);
    return principal;
  }
  if (c.type === 'backoffice') {
    // A password reset ends every session of the user signed in before it (`endUserSessions`).
    if (await isRevokedSession(deps.redis, c)) return null;
    if (!(await mayActForMerchant(deps.db, c.sub, c.merchant_id))) return null;
    return { type: 'backoffice', userId: c.sub, ...base };
  }
  if (await isRevoked(deps.redis, c.jti)) return null;
  return { type: 'customer', customerId: c.sub, ...base };
}
