import { createRemoteJWKSet, jwtVerify, errors as joseErrors, type JWTPayload } from 'jose';

export interface IdpConfig {
  /** The provider's issuer (`iss`); discovery is `{issuer}/.well-known/openid-configuration`. */
  issuer: string;
  /** Our client id: the ID token's required audience. */
  clientId: string;
  /** JWKS address; default: `jwks_uri` from discovery. */
  jwksUrl?: string;
}

export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  expiresAt: Date;
}

/** Why a credential was refused (the routes answer 422 on `credential` with `message`). */
export class IdTokenError extends Error {
  constructor(readonly reason: 'invalid' | 'expired' | 'nonce' | 'unavailable', message: string) {
    super(message);
    this.name = 'IdTokenError';
  }
}

/**
 * Verifies OpenID Connect ID tokens with jose against the provider's JWKS: signature (RS256/ES256,
 * keys fetched and cached by kid, refetched on an unknown kid), issuer, audience, expiry (60 s
 * clock tolerance) and the nonce the client sent with its request. Shared by the back-office
 * `POST /login/idp` and the customer `/customer/login/idp`.
 */
export class IdTokenVerifier {
  #jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
  constructor(readonly config: IdpConfig, private readonly fetchTimeoutMs = 5000) {}

  async #keys() {
    if (this.#jwks) return this.#jwks;
    let url = this.config.jwksUrl;
    if (!url) {
      const res = await fetch(`${this.config.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`, { signal: AbortSignal.timeout(this.fetchTimeoutMs) }).catch(() => null);
      const doc = res?.ok ? ((await res.json().catch(() => null)) as { jwks_uri?: unknown; issuer?: unknown } | null) : null;
      if (!doc || typeof doc.jwks_uri !== 'string') throw new IdTokenError('unavailable', 'The identity provider is unreachable.');
      url = doc.jwks_uri;
    }
    this.#jwks = createRemoteJWKSet(new URL(url), { timeoutDuration: this.fetchTimeoutMs, cooldownDuration: 30_000 });
    return this.#jwks;
  }

  /**
   * `nonce`: the value the client put in its authorization request; the token's `nonce` claim must
   * equal it. `null` skips that check, for a route whose body carries no nonce (spec 1's
   * `/customer/login/idp` takes only `credential`); such a caller should spend the token's `jti`/`iat` itself.
   */
  async verify(credential: string, nonce: string | null, now: Date = new Date()): Promise<VerifiedIdentity> {
    const keys = await this.#keys();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(credential, keys, {
        issuer: this.config.issuer,
        audience: this.config.clientId,
        algorithms: ['RS256', 'ES256'],
        currentDate: now,
        clockTolerance: 60,
        requiredClaims: ['sub', 'exp', 'iat'],
      }));
    } catch (e) {
      if (e instanceof joseErrors.JWTExpired) throw new IdTokenError('expired', 'The identity credential has expired.');
      if (e instanceof joseErrors.JWKSTimeout || (e instanceof Error && /fetch|ECONNREFUSED|timeout/i.test(e.message) && !(e instanceof joseErrors.JOSEError))) {
        throw new IdTokenError('unavailable', 'The identity provider is unreachable.');
      }
      throw new IdTokenError('invalid', 'The identity credential is invalid.');
    }
    if (nonce !== null && (typeof payload.nonce !== 'string' || payload.nonce !== nonce)) throw new IdTokenError('nonce', 'The identity credential does not match this request.');
    return {
      issuer: payload.iss!,
      subject: payload.sub!,
      email: typeof payload.email === 'string' ? payload.email.toLowerCase() : null,
      emailVerified: payload.email_verified === true || payload.email_verified === 'true',
      name: typeof payload.name === 'string' ? payload.name : null,
      expiresAt: new Date(payload.exp! * 1000),
    };
  }
}

export function idTokenVerifierFromEnv(env: { IDP_ISSUER?: string; IDP_CLIENT_ID?: string; IDP_JWKS_URL?: string }): IdTokenVerifier | null {
  if (!env.IDP_ISSUER || !env.IDP_CLIENT_ID) return null;
  return new IdTokenVerifier({ issuer: env.IDP_ISSUER, clientId: env.IDP_CLIENT_ID, ...(env.IDP_JWKS_URL ? { jwksUrl: env.IDP_JWKS_URL } : {}) });
}
