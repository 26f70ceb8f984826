import { jwt } from '@elysiajs/jwt';
import { TOKEN_LIFETIME_SECONDS, type TokenService, type TokenType, type VerifiedClaims } from '@pos/core/auth/principal';

export type { TokenService, VerifiedClaims };

const TYPES: ReadonlySet<string> = new Set<TokenType>(['backoffice', 'customer', 'kiosk', 'kds', 'pos']);

const ALG = 'HS256';

/** Signed JWTs (HS256) through @elysiajs/jwt; the secret comes from the environment. */
export function createTokenService(secret: string): TokenService {
  const signer = jwt({ name: 'jwt', secret, alg: ALG }).decorator.jwt;
  return {
    async sign(claims, lifetimeSeconds) {
      const ttl = lifetimeSeconds ?? TOKEN_LIFETIME_SECONDS[claims.type];
      const now = Math.floor(Date.now() / 1000);
      // A UUIDv7 jti carries the issue time to the millisecond (`issuedAtMs`: a password reset ends the sessions issued before it).
      return signer.sign({ ...claims, jti: claims.jti ?? Bun.randomUUIDv7(), exp: now + ttl });
    },
    async verify(token) {
      // Only the algorithm we issue: a token signed with HS384/HS512 (even with our secret) is refused.
      const p = (await signer.verify(token, { algorithms: [ALG] })) as Record<string, unknown> | false;
      if (!p) return null;
      const ok =
        typeof p.type === 'string' &&
        TYPES.has(p.type) &&
        typeof p.sub === 'string' &&
        typeof p.tenant_database === 'string' &&
        typeof p.merchant_id === 'string' &&
        typeof p.jti === 'string' &&
        typeof p.exp === 'number';
      return ok ? (p as unknown as VerifiedClaims) : null;
    },
  };
}
