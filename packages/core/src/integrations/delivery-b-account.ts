import type { CentralDb } from '@pos/db';
import { errors } from '@pos/kernel';
import type { DeliveryBClient } from '@pos/providers/delivery-b/delivery-b-client';
import type { OAuthClientConfig } from '@pos/providers/oauth/oauth-client';
import { ProviderError } from '@pos/providers/shared/provider-error';
import { expiresSoon, refreshConnectionToken } from './register-c-token-refresh.ts';
import { decryptSecret, type TokenKey } from './token-crypto.ts';

/**
 * A merchant's delivery-b ACCOUNT (what the OAuth callback connects) is kept apart from the marketplace
 * STORES its locations are connected to (provider `delivery-b`, `external_ref` the store id, which the
 * order webhooks name): different key spaces, so the account is its own provider word. Its access token
 * is how we learn which stores are the merchant's (`GET /v2/me/stores` at delivery-b): the platform token
 * sees every merchant's stores.
 */
export const DELIVERY_B_ACCOUNT = 'delivery-b-account';

/**
 * The stores of the merchant's connected delivery-b accounts, by id (name as value); none without an
 * account. With `oauth` (delivery-b's token endpoint and our client there), an account's access token
 * expiring within a minute is refreshed before it is used, and one delivery-b refuses (401/403) is
 * refreshed once and the call made again, as register-c's (`refreshConnectionToken`: one process at a
 * time, the rotated tokens stored). delivery-b refusing the token still (no refresh token, the refresh
 * refused) is 409 `provider_token_rejected` (connect it again); unreachable is 503.
 */
export async function merchantDeliveryBStores(db: CentralDb, client: DeliveryBClient, key: TokenKey | null, merchantId: string, oauth: OAuthClientConfig | null = null, now: () => Date = () => new Date()): Promise<Map<string, string>> {
  const accounts = await db
    .selectFrom('integration_connections')
    .select(['id', 'external_ref', 'access_token_encrypted', 'token_expires_at'])
    .where('merchant_id', '=', merchantId)
    .where('provider', '=', DELIVERY_B_ACCOUNT)
    .where('status', '=', 'active')
    .orderBy('created_at')
    .limit(20)
    .execute();
  const stores = new Map<string, string>();
  for (const a of accounts) {
    if (!a.access_token_encrypted) continue;
    if (!key) throw errors.unavailable('delivery-b is not configured.');
    const stored = decryptSecret(key, a.access_token_encrypted);
    if (!stored) continue;
    let attempt: Promise<string | null> | null = null;
    const renew = (stale: string) => (oauth ? (attempt ??= refreshConnectionToken(db, oauth, key, a.id, stale, now)) : Promise.resolve(null));
    let token = expiresSoon(a.token_expires_at, now()) ? ((await renew(stored)) ?? stored) : stored;
    for (;;) {
      try {
        for (const s of (await client.accountStores(token)).stores) stores.set(s.id, s.name);
        break;
      } catch (e) {
        if (e instanceof ProviderError && e.kind === 'http' && (e.status === 401 || e.status === 403)) {
          const fresh = attempt ? null : await renew(token);
          if (fresh && fresh !== token) {
            token = fresh;
            continue;
          }
          throw errors.conflict('delivery-b refused the access of the connected account; connect the delivery-b account again.', { reason: 'provider_token_rejected' });
        }
        throw errors.unavailable('delivery-b could not be reached.');
      }
    }
  }
  return stores;
}
