import { errors } from '@pos/kernel';
import type { OAuthProvider } from '@pos/providers/oauth/oauth-client';
import { mintOAuthState } from './oauth-state.ts';

export interface OAuthStartConfig {
  /** `<P>_OAUTH_URL` (its `/oauth/authorize` is the consent screen). */
  readonly oauthUrl: string | null;
  readonly clientId: string | null;
  readonly redirectUri: string | null;
  readonly stateSecret: string | null;
}

/**
 * The start of a provider's OAuth connect flow: its authorize URL with a signed, expiring, single-use
 * state naming the merchant (and the location, for location-scoped flows). 503 while unconfigured.
 */
export function startOAuthFlow(provider: OAuthProvider, who: { merchantId: string; locationId: string | null; now: Date }, cfg: OAuthStartConfig): { authorize_url: string; state: string; expires_at: string } {
  if (!cfg.oauthUrl || !cfg.clientId || !cfg.redirectUri || !cfg.stateSecret) throw errors.unavailable(`${provider} is not configured.`);
  const { state, expiresAt } = mintOAuthState({ secret: cfg.stateSecret, provider, merchantId: who.merchantId, locationId: who.locationId, now: who.now });
  const url = new URL(`${cfg.oauthUrl.replace(/\/+$/, '')}/oauth/authorize`);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', cfg.clientId);
  url.searchParams.set('redirect_uri', cfg.redirectUri);
  url.searchParams.set('scope', 'read write');
  url.searchParams.set('state', state);
  return { authorize_url: url.toString(), state, expires_at: expiresAt.toISOString() };
}
