import { SignJWT, exportJWK, generateKeyPair, type JWK } from 'jose';
import { dispatch, jsonBody, route } from '../shared/sim-server.ts';

export interface IdTokenClaims {
  sub: string;
  aud?: string;
  email?: string;
  email_verified?: boolean;
  name?: string;
  nonce?: string;
  /** Seconds from now until expiry (negative: already expired). Default 600. */
  expires_in?: number;
  /** Sign with a key the JWKS does not publish (a forged token). */
  foreign_key?: boolean;
  iss?: string;
}

/**
 * The identity-provider simulator: a real HTTP server with OpenID discovery and a JWKS (RS256 key
 * made at start), and a test endpoint `POST /_sim/id-token` that signs an ID token with the claims it
 * is given, as the provider would after a user signed in.
 */
export async function startIdpSimulator(opts: { port?: number; clientId: string; host?: string }) {
  const host = opts.host ?? '127.0.0.1';
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const foreign = await generateKeyPair('RS256', { extractable: true });
  const kid = `sim-${crypto.randomUUID().slice(0, 8)}`;
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: 'RS256', use: 'sig' };
  let issuer = '';

  async function sign(c: IdTokenClaims): Promise<string> {
    const now = Math.floor(Date.now() / 1000);
    const { sub, aud, expires_in, foreign_key, iss, ...rest } = c;
    return new SignJWT({ ...rest })
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
      .setIssuer(iss ?? issuer)
      .setSubject(sub)
      .setAudience(aud ?? opts.clientId)
      .setIssuedAt(now)
      .setExpirationTime(now + (expires_in ?? 600))
      .sign(foreign_key ? foreign.privateKey : privateKey);
  }

  const routes = [
    route('GET', '/.well-known/openid-configuration', () =>
      Response.json({ issuer, jwks_uri: `${issuer}/jwks`, authorization_endpoint: `${issuer}/authorize`, id_token_signing_alg_values_supported: ['RS256'], response_types_supported: ['id_token'], subject_types_supported: ['public'] }),
    ),
    route('GET', '/jwks', () => Response.json({ keys: [jwk] })),
    route('POST', '/_sim/id-token', async (req) => {
      const b = await jsonBody(req);
      if (!b || typeof b.sub !== 'string') return Response.json({ error: 'sub required' }, { status: 400 });
      return Response.json({ id_token: await sign(b as unknown as IdTokenClaims) });
    }),
  ];
  const server = Bun.serve({ hostname: host, port: opts.port ?? 0, fetch: (req) => dispatch(routes, req, () => Response.json({ error: 'not_found' }, { status: 404 })) });
  issuer = `http://${host}:${server.port}`;
  return { url: issuer, issuer, clientId: opts.clientId, sign, stop: async () => void server.stop(true) };
}

export type IdpSimulator = Awaited<ReturnType<typeof startIdpSimulator>>;
