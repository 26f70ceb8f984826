import { Elysia, type AnyElysia } from 'elysia';
import type { Static } from '@sinclair/typebox';
import { completeOAuthCallback } from '@pos/core/integrations/oauth-callback';
import { parseTokenKey } from '@pos/core/integrations/token-crypto';
import { shopName } from '@pos/core/webhooks/integration-providers';
import type { OAuthClientConfig, OAuthProvider } from '@pos/providers/oauth/oauth-client';
import type { ApiDeps } from '../../context.ts';
import { SHOP_A_DEFAULT_SUFFIX } from './integration-webhooks.ts';
import * as S from './webhooks.schemas.ts';

const tags = ['Webhooks'];

/** The token endpoint and client of a provider, from `<P>_OAUTH_URL`, `<P>_CLIENT_ID`, `<P>_CLIENT_SECRET`, `<P>_OAUTH_REDIRECT_URI`. */
export function oauthClientConfig(config: ApiDeps['config'], provider: OAuthProvider): OAuthClientConfig | null {
  const c = config as unknown as Record<string, string | undefined>;
  const p = provider.toUpperCase().replace('-', '_');
  const baseUrl = c[`${p}_OAUTH_URL`];
  const clientId = c[`${p}_CLIENT_ID`];
  const clientSecret = c[`${p}_CLIENT_SECRET`];
  if (!baseUrl || !clientId || !clientSecret) return null;
  const redirectUri = c[`${p}_OAUTH_REDIRECT_URI`];
  return { provider, baseUrl, clientId, clientSecret, ...(redirectUri ? { redirectUri } : {}) };
}

/**
 * The OAuth callbacks of spec 3 section 4 (issue 13 item 1): `/shop-a-callback`,
 * `/platform-a-callback`, `/delivery-b/callback`, and register-c's two paths to one handler.
 */
export function oauthCallbackRoutes(deps: ApiDeps): AnyElysia {
  const tokenKey = parseTokenKey(deps.config.INTEGRATION_TOKEN_KEY);
  const suffix = deps.config.SHOP_A_SHOP_DOMAIN_SUFFIX ?? SHOP_A_DEFAULT_SUFFIX;
  const handler = (provider: OAuthProvider) => {
    const client = oauthClientConfig(deps.config, provider);
    return async ({ query }: { query: Static<typeof S.OAuthCallbackQuery> }) => {
      const done = await completeOAuthCallback(
        { db: deps.db, redis: deps.redis, log: deps.log, now: () => deps.clock.now(), stateSecret: deps.config.OAUTH_STATE_SECRET ?? null, tokenKey, client },
        { provider, state: query.state, code: query.code, error: query.error, ...(provider === 'shop-a' ? { shop: shopName(query.shop, suffix) } : {}) },
      );
      return { status: 'success' as const, data: { provider, connection_id: done.connectionId, location_id: done.locationId } };
    };
  };
  const options = (provider: string, path: string) => ({
    query: S.OAuthCallbackQuery,
    response: { 200: S.OAuthConnected },
    detail: {
      tags,
      summary: `${provider} OAuth callback${path ? ` (${path})` : ''}`,
      description: `The provider's redirect after consent: \`code\` and the signed \`state\` minted when the flow started (binds merchant and location, expires after 10 minutes, used once). The code is exchanged at \`${provider.toUpperCase().replace('-', '_')}_OAUTH_URL\`/oauth/token and the tokens stored encrypted on the integration connection. 400 \`Invalid or expired OAuth state.\` for a missing, forged, expired, used or other provider's state, 400 \`The provider did not grant access.\` when the provider sent \`error\`, 400 \`The provider did not accept the authorization code.\`; 409 \`integration_taken\` when the account is connected to another merchant.${provider === 'delivery-b' ? ' delivery-b: the merchant\'s delivery-b ACCOUNT is stored (provider `delivery-b-account`, merchant level), never a store; its stores are connected with enable/select-store.' : ''}${provider === 'register-c' ? ' register-c: another account of the merchant replaces its connection (the old account\'s mappings and payment-method map are dropped).' : ''} Nothing is stored on a refusal.${provider === 'shop-a' ? ' `shop` is the shop domain (the platform suffix is removed).' : ''}`,
    },
  });
  const registerC = handler('register-c');
  return new Elysia({ name: 'oauth-callbacks' })
    .get('/shop-a-callback', handler('shop-a'), options('shop-a', ''))
    .get('/platform-a-callback', handler('platform-a'), options('platform-a', ''))
    .get('/delivery-b/callback', handler('delivery-b'), options('delivery-b', ''))
    .get('/register-c/callback', registerC, options('register-c', '/register-c/callback'))
    .get('/oauth/register-c/callback', registerC, options('register-c', '/oauth/register-c/callback'));
}
