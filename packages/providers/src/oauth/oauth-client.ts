/**
 * The authorization-code exchange of the integrations' OAuth connect flows (RFC 6749 section 4.1.3):
 * `POST {base}/oauth/token`, form-encoded `grant_type=authorization_code`, `code`, `redirect_uri`,
 * `client_id`, `client_secret` (client_secret_post; shop-a adds `shop`). The answer is
 * `{access_token, token_type, expires_in?, refresh_token?, scope?, account_id?}`; `account_id` names the
 * provider account the connection is keyed by (shop-a's is the shop).
 * The refresh of an access token (section 6) is the same endpoint with `grant_type=refresh_token`,
 * `refresh_token` and the client credentials; the answer may rotate the refresh token (then the old
 * one stops working). An unknown or used refresh token is 400 `invalid_grant`.
 */
export type OAuthProvider = 'shop-a' | 'platform-a' | 'delivery-b' | 'register-c';

export interface OAuthClientConfig {
  readonly provider: OAuthProvider;
  readonly baseUrl: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUri?: string;
  readonly timeoutMs?: number;
}

export interface OAuthTokens {
  readonly accessToken: string;
  readonly refreshToken: string | null;
  readonly expiresIn: number | null;
  readonly scope: string | null;
  readonly accountId: string | null;
}

/** `rejected`: the provider refused the code or the client (4xx); `unavailable`: no usable answer. */
export class OAuthExchangeError extends Error {
  constructor(readonly provider: OAuthProvider, readonly kind: 'rejected' | 'unavailable', message: string, readonly status: number | null = null, readonly code: string | null = null) {
    super(`${provider}: ${message}`);
    this.name = 'OAuthExchangeError';
  }
}

export async function exchangeAuthorizationCode(cfg: OAuthClientConfig, code: string, extra: Record<string, string> = {}): Promise<OAuthTokens> {
  const form = new URLSearchParams({ grant_type: 'authorization_code', code, client_id: cfg.clientId, client_secret: cfg.clientSecret, ...extra });
  if (cfg.redirectUri) form.set('redirect_uri', cfg.redirectUri);
  return tokenRequest(cfg, form);
}

/**
 * New tokens for a stored refresh token. `refreshToken` in the answer is the rotated one, or null when
 * the provider keeps the old one valid (the caller then keeps it).
 */
export function refreshAccessToken(cfg: OAuthClientConfig, refreshToken: string): Promise<OAuthTokens> {
  return tokenRequest(cfg, new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: cfg.clientId, client_secret: cfg.clientSecret }));
}

async function tokenRequest(cfg: OAuthClientConfig, form: URLSearchParams): Promise<OAuthTokens> {
  let res: Response;
  try {
    res = await fetch(`${cfg.baseUrl.replace(/\/+$/, '')}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: form.toString(),
      signal: AbortSignal.timeout(cfg.timeoutMs ?? 15_000),
    });
  } catch (e) {
    throw new OAuthExchangeError(cfg.provider, 'unavailable', e instanceof Error ? e.message : String(e));
  }
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    const v = JSON.parse(text);
    if (v && typeof v === 'object' && !Array.isArray(v)) body = v as Record<string, unknown>;
  } catch {
    // read below as an unusable answer
  }
  if (res.status >= 400 && res.status < 500) {
    throw new OAuthExchangeError(cfg.provider, 'rejected', `token endpoint answered ${res.status}`, res.status, typeof body.error === 'string' ? body.error : null);
  }
  if (!res.ok || typeof body.access_token !== 'string' || !body.access_token) {
    throw new OAuthExchangeError(cfg.provider, 'unavailable', `token endpoint answered ${res.status} without an access token`, res.status);
  }
  const s = (v: unknown) => (typeof v === 'string' && v ? v : typeof v === 'number' ? String(v) : null);
  return {
    accessToken: body.access_token,
    refreshToken: s(body.refresh_token),
    expiresIn: typeof body.expires_in === 'number' && Number.isFinite(body.expires_in) && body.expires_in > 0 ? Math.floor(body.expires_in) : null,
    scope: s(body.scope),
    accountId: s(body.account_id) ?? s(body.merchant_id),
  };
}
