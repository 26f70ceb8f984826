import type Redis from 'ioredis';
import type { CentralDb } from '@pos/db';
import { AppError, type Logger } from '@pos/kernel';
import { exchangeAuthorizationCode, OAuthExchangeError, type OAuthClientConfig, type OAuthProvider } from '@pos/providers/oauth/oauth-client';
import { locationExists, saveConnection } from './connections.ts';
import { consumeOAuthState, readOAuthState } from './oauth-state.ts';
import type { TokenKey } from './token-crypto.ts';
import { DELIVERY_B_ACCOUNT } from './delivery-b-account.ts';
import { connectRegisterCAccount } from './register-c-connect.ts';

/** One message for every state that is not ours, expired, for another provider, or used: nothing to probe. */
export const INVALID_STATE = 'Invalid or expired OAuth state.';

export interface OAuthCallbackDeps {
  readonly db: CentralDb;
  readonly redis: Redis;
  readonly log: Logger;
  readonly now: () => Date;
  /** null: no state can be valid (OAUTH_STATE_SECRET unset). */
  readonly stateSecret: string | null;
  readonly tokenKey: TokenKey | null;
  /** null: the provider's token endpoint is not configured. */
  readonly client: OAuthClientConfig | null;
}

export interface OAuthCallbackInput {
  readonly provider: OAuthProvider;
  readonly state: string | undefined;
  readonly code: string | undefined;
  readonly error: string | undefined;
  /** shop-a: the shop name (domain without the platform suffix) from the callback's `shop`. */
  readonly shop?: string | null;
}

export const SHOP_MISMATCH = 'The authorization code was not granted for this shop.';

/**
 * An OAuth callback (`/shop-a-callback`, `/platform-a-callback`, `/delivery-b/callback`,
 * `/register-c/callback`): the signed state names the merchant and location the flow was started
 * for; it is checked (signature, expiry, provider), consumed once, the code exchanged at the provider,
 * and the tokens stored encrypted on the connection keyed by the provider account. Any refusal is a
 * 4xx with nothing stored.
 */
export async function completeOAuthCallback(deps: OAuthCallbackDeps, input: OAuthCallbackInput): Promise<{ connectionId: string; locationId: string | null }> {
  if (input.error) throw new AppError('bad_request', 'The provider did not grant access.', { reason: 'access_denied' });
  const now = deps.now();
  const read = deps.stateSecret && input.state ? readOAuthState({ secret: deps.stateSecret, state: input.state, provider: input.provider, now }) : ({ ok: false, reason: 'malformed' } as const);
  if (!read.ok) {
    deps.log.warn('oauth callback refused', { provider: input.provider, reason: read.reason });
    throw new AppError('bad_request', INVALID_STATE, { reason: 'invalid_state' });
  }
  if (!input.code) throw new AppError('bad_request', 'The authorization code is missing.', { reason: 'missing_code' });
  const { claims } = read;
  const merchant = await deps.db.selectFrom('merchants').select(['id', 'tenant_database']).where('id', '=', claims.merchantId).executeTakeFirst();
  if (!merchant || (claims.locationId && !(await locationExists(deps.db, merchant.tenant_database, claims.locationId)))) {
    throw new AppError('bad_request', INVALID_STATE, { reason: 'invalid_state' });
  }
  if (!deps.client || !deps.tokenKey) throw new AppError('unavailable', 'This integration is not configured.');
  if (input.provider === 'shop-a' && !input.shop) throw new AppError('bad_request', 'The shop is missing.', { reason: 'missing_shop' });
  if (!(await consumeOAuthState(deps.redis, claims, now))) {
    deps.log.warn('oauth callback refused', { provider: input.provider, reason: 'used' });
    throw new AppError('bad_request', INVALID_STATE, { reason: 'invalid_state' });
  }
  let tokens;
  try {
    tokens = await exchangeAuthorizationCode(deps.client, input.code, input.shop ? { shop: input.shop } : {});
  } catch (e) {
    deps.log.warn('oauth code exchange failed', { provider: input.provider, merchant_id: claims.merchantId, err: e });
    if (e instanceof OAuthExchangeError && e.kind === 'rejected') throw new AppError('bad_request', 'The provider did not accept the authorization code.', { reason: 'code_rejected' });
    throw new AppError('unavailable', 'The provider could not be reached.');
  }
  // The callback's `shop` is a query parameter anyone can edit: a code granted for one shop must not
  // connect another (whose webhooks would then reach this merchant). The token answer names the shop
  // the code was granted for (its domain or name; `shop` here is the name): a different one is refused
  // and nothing is stored. An answer naming no shop binds the code to none, so it is refused the same way
  // (taking the query's word for it let a code of one's own shop connect anybody's).
  if (input.provider === 'shop-a' && (!tokens.accountId || tokens.accountId.trim().toLowerCase().split('.')[0] !== input.shop!.toLowerCase())) {
    deps.log.warn('oauth callback refused', { provider: input.provider, merchant_id: claims.merchantId, reason: 'shop_mismatch' });
    throw new AppError('bad_request', SHOP_MISMATCH, { reason: 'shop_mismatch' });
  }
  const externalRef = input.provider === 'shop-a' ? input.shop! : tokens.accountId;
  if (!externalRef || externalRef.length > 200) throw new AppError('unavailable', 'The provider answered without an account reference.');
  const tokenValues = {
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    tokenExpiresAt: tokens.expiresIn ? new Date(now.getTime() + tokens.expiresIn * 1000) : null,
    scopes: tokens.scope,
  };
  // delivery-b: the account (which owns stores), never a store: stores are connected by enable/select-store.
  const saved =
    input.provider === 'delivery-b'
      ? await saveConnection(deps.db, deps.tokenKey, { provider: DELIVERY_B_ACCOUNT, externalRef, merchantId: claims.merchantId, locationId: null, ...tokenValues }, now)
      : input.provider === 'register-c'
      ? await connectRegisterCAccount(deps.db, deps.tokenKey, { externalRef, merchantId: claims.merchantId, locationId: claims.locationId }, tokenValues, now)
      : await saveConnection(deps.db, deps.tokenKey, { provider: input.provider, externalRef, merchantId: claims.merchantId, locationId: claims.locationId, ...tokenValues }, now);
  deps.log.info('integration connected', { provider: input.provider, merchant_id: claims.merchantId, connection_id: saved.id });
  return { connectionId: saved.id, locationId: claims.locationId };
}
