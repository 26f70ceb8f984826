import { dispatch, jsonBody, route } from '../shared/sim-server.ts';
import type { OAuthProvider } from './oauth-client.ts';

/**
 * The token endpoint of an integration provider over real HTTP (RFC 6749): `POST /oauth/token`
 * (form-encoded, client_secret_post) exchanges a code once, within 10 minutes, for the client it was
 * issued to and with the redirect URI it was issued for. Errors are `{error, error_description}`:
 * 401 `invalid_client`, 400 `invalid_grant`, 400 `unsupported_grant_type`. `grant_type=refresh_token`
 * exchanges a refresh token it issued for a new access token and a new refresh token (rotation: the old
 * refresh token is spent; spent, revoked or unknown is 400 `invalid_grant`). Codes come from the
 * control API `POST /_sim/codes {account_id, redirect_uri?}` (what the provider's consent screen would
 * issue) or `issueCode()`. `POST /oauth/introspect` (RFC 7662, form `token` + client credentials)
 * answers `{active, account_id?}`: how a provider's API simulator (register-c) accepts issued tokens.
 * `GET /oauth/authorize` is a consent screen that always consents (dev): for our client it redirects
 * (302) to `redirect_uri` with a code for `account_id` (query, default `<provider>-dev-account`) and the
 * `state` unchanged.
 */
export interface OAuthSimulatorOptions {
  readonly provider: OAuthProvider;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly port?: number;
  readonly hostname?: string;
}

interface Code {
  accountId: string;
  redirectUri: string | null;
  expiresAt: number;
  used: boolean;
}

export interface OAuthIssued {
  readonly grant: 'authorization_code' | 'refresh_token';
  /** The code exchanged; null for a refresh. */
  readonly code: string | null;
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly accountId: string;
}

export interface OAuthSimulator {
  readonly url: string;
  readonly provider: OAuthProvider;
  issueCode(input: { accountId: string; redirectUri?: string }): string;
  /** Tokens issued (code exchanges and refreshes), newest last. */
  readonly issued: readonly OAuthIssued[];
  /** The grant_type of every token request received (answered or refused), oldest first. */
  readonly tokenRequests: readonly string[];
  /** The refresh token answers `invalid_grant` from now on (the user revoked the app). */
  revokeRefreshToken(refreshToken: string): void;
  /** The access token is introspected as inactive from now on (it expired): a provider API simulator refuses it. */
  expireAccessToken(accessToken: string): void;
  /** Refresh requests wait (after being counted in `tokenRequests`) until `release` is called: a slow token endpoint. */
  holdRefreshes(): { release(): void };
  stop(): Promise<void>;
}

const CODE_TTL_MS = 600_000;

export function startOAuthSimulator(opts: OAuthSimulatorOptions): OAuthSimulator {
  const codes = new Map<string, Code>();
  const issued: OAuthIssued[] = [];
  const tokenRequests: string[] = [];
  let refreshGate: Promise<void> | null = null;
  // Refresh token -> its account; spent (rotated) or revoked ones are deleted.
  const refreshTokens = new Map<string, string>();
  const expired = new Set<string>();
  const random = (prefix: string) => `${prefix}_${opts.provider}_${crypto.randomUUID().replace(/-/g, '')}`;
  const grant = (kind: OAuthIssued['grant'], code: string | null, accountId: string) => {
    const entry = { grant: kind, code, accessToken: random('at'), refreshToken: random('rt'), accountId };
    issued.push(entry);
    refreshTokens.set(entry.refreshToken, accountId);
    return Response.json({ access_token: entry.accessToken, token_type: 'bearer', expires_in: 3600, refresh_token: entry.refreshToken, scope: 'read write', account_id: accountId });
  };
  const oauthError = (status: number, error: string, description: string) => Response.json({ error, error_description: description }, { status });
  const issueCode = (input: { accountId: string; redirectUri?: string }) => {
    const code = `code_${crypto.randomUUID().replace(/-/g, '')}`;
    codes.set(code, { accountId: input.accountId, redirectUri: input.redirectUri ?? null, expiresAt: Date.now() + CODE_TTL_MS, used: false });
    return code;
  };
  const routes = [
    route('POST', '/oauth/token', async (req) => {
      const form = new URLSearchParams(await req.text());
      tokenRequests.push(form.get('grant_type') ?? '');
      if (form.get('client_id') !== opts.clientId || form.get('client_secret') !== opts.clientSecret) return oauthError(401, 'invalid_client', 'Client authentication failed.');
      if (form.get('grant_type') === 'refresh_token') {
        if (refreshGate) await refreshGate;
        const presented = form.get('refresh_token') ?? '';
        const accountId = refreshTokens.get(presented);
        if (!accountId) return oauthError(400, 'invalid_grant', 'The refresh token is invalid, revoked or already used.');
        refreshTokens.delete(presented);
        return grant('refresh_token', null, accountId);
      }
      if (form.get('grant_type') !== 'authorization_code') return oauthError(400, 'unsupported_grant_type', 'Only authorization_code and refresh_token are supported.');
      const code = codes.get(form.get('code') ?? '');
      if (!code || code.used || code.expiresAt < Date.now()) return oauthError(400, 'invalid_grant', 'The authorization code is invalid, expired or already used.');
      if (code.redirectUri !== null && code.redirectUri !== form.get('redirect_uri')) return oauthError(400, 'invalid_grant', 'The redirect URI does not match.');
      code.used = true;
      return grant('authorization_code', form.get('code')!, code.accountId);
    }),
    route('GET', '/oauth/authorize', (_req, _p, url) => {
      const q = url.searchParams;
      const redirectUri = q.get('redirect_uri');
      if (q.get('client_id') !== opts.clientId || q.get('response_type') !== 'code' || !redirectUri) return oauthError(400, 'invalid_request', 'client_id, response_type=code and redirect_uri are required.');
      const back = new URL(redirectUri);
      back.searchParams.set('code', issueCode({ accountId: q.get('account_id') || `${opts.provider}-dev-account`, redirectUri }));
      if (q.get('state')) back.searchParams.set('state', q.get('state')!);
      return new Response(null, { status: 302, headers: { location: back.toString() } });
    }),
    route('POST', '/oauth/introspect', async (req) => {
      const form = new URLSearchParams(await req.text());
      if (form.get('client_id') !== opts.clientId || form.get('client_secret') !== opts.clientSecret) return oauthError(401, 'invalid_client', 'Client authentication failed.');
      const hit = expired.has(form.get('token') ?? '') ? undefined : issued.find((i) => i.accessToken === form.get('token'));
      return Response.json(hit ? { active: true, account_id: hit.accountId } : { active: false });
    }),
    route('POST', '/_sim/codes', async (req) => {
      const b = await jsonBody(req);
      if (!b || typeof b.account_id !== 'string' || !b.account_id) return Response.json({ error: 'account_id required' }, { status: 400 });
      return Response.json({ code: issueCode({ accountId: b.account_id, ...(typeof b.redirect_uri === 'string' ? { redirectUri: b.redirect_uri } : {}) }) });
    }),
  ];
  const server = Bun.serve({ port: opts.port ?? 0, hostname: opts.hostname ?? '127.0.0.1', fetch: (req) => dispatch(routes, req, () => oauthError(404, 'not_found', 'Not found.')) });
  return {
    url: `http://${server.hostname}:${server.port}`,
    provider: opts.provider,
    issueCode,
    issued,
    tokenRequests,
    revokeRefreshToken: (refreshToken) => {
      refreshTokens.delete(refreshToken);
    },
    expireAccessToken: (accessToken) => {
      expired.add(accessToken);
    },
    holdRefreshes: () => {
      let release!: () => void;
      refreshGate = new Promise<void>((r) => (release = r));
      return {
        release: () => {
          refreshGate = null;
          release();
        },
      };
    },
    stop: async () => {
      await server.stop(true);
    },
  };
}
