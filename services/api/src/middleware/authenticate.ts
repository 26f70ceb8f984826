import type { Principal } from '@pos/core/auth/principal';
import { authenticateToken, type TokenAuthDeps } from '@pos/core/auth/authenticate-token';

/** `Authorization: Bearer <token>` or null; any other scheme counts as no token. */
export function bearerToken(header: string | undefined | null): string | null {
  if (!header) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1]! : null;
}

/**
 * `auth` on an `Authorization` header: 401 `Unauthenticated` without a bearer token, 401 `Invalid
 * token` for a bad, expired, revoked or mis-signed one, or one whose subject no longer exists.
 */
export function authenticate(deps: TokenAuthDeps, header: string | undefined | null): Promise<Principal> {
  return authenticateToken(deps, bearerToken(header));
}

/** `auth.optional`: the principal when a valid token is present, null when absent; an invalid one is still 401. */
export async function authenticateOptional(deps: TokenAuthDeps, header: string | undefined | null): Promise<Principal | null> {
  if (!bearerToken(header)) return null;
  return authenticate(deps, header);
}
