import type { CentralDb } from '@pos/db';
import { OAuthExchangeError, refreshAccessToken, type OAuthClientConfig } from '@pos/providers/oauth/oauth-client';
import { decryptSecret, encryptSecret, type TokenKey } from './token-crypto.ts';

/** A stored token expiring within this margin is refreshed before it is used. */
export const REFRESH_MARGIN_MS = 60_000;

export const expiresSoon = (expiresAt: Date | null, now: Date): boolean => expiresAt !== null && new Date(expiresAt).getTime() <= now.getTime() + REFRESH_MARGIN_MS;

/**
 * Refreshes the register-c connection's access token with its stored refresh token, after `stale`
 * expired or was refused. The provider rotates refresh tokens (the one presented stops working), so
 * two processes must never present the same one: the connection row is locked (`FOR UPDATE`) and
 * re-read, and when another process refreshed meanwhile (the stored token is no longer `stale` and
 * not expiring) its token is used as is. The new tokens and expiry are stored encrypted before the
 * lock is released. Answers the token to use, or null when there is none: no refresh token, the
 * connection gone or disabled, the provider refusing (`invalid_grant`) or unreachable; the row is
 * then left as it was.
 */
export async function refreshRegisterCToken(db: CentralDb, oauth: OAuthClientConfig, key: TokenKey, connectionId: string, stale: string, now: () => Date): Promise<string | null> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('integration_connections')
      .select(['status', 'access_token_encrypted', 'refresh_token_encrypted', 'token_expires_at'])
      .where('id', '=', connectionId)
      .forUpdate()
      .executeTakeFirst();
    if (!row || row.status !== 'active' || !row.access_token_encrypted) return null;
    const current = decryptSecret(key, row.access_token_encrypted);
    if (current && current !== stale && !expiresSoon(row.token_expires_at, now())) return current;
    const refreshToken = row.refresh_token_encrypted ? decryptSecret(key, row.refresh_token_encrypted) : null;
    if (!refreshToken) return null;
    let tokens;
    try {
      tokens = await refreshAccessToken(oauth, refreshToken);
    } catch (e) {
      if (e instanceof OAuthExchangeError) return null;
      throw e;
    }
    const at = now();
    await trx
      .updateTable('integration_connections')
      .set({
        access_token_encrypted: encryptSecret(key, tokens.accessToken),
        // An answer without a refresh token means the provider keeps the presented one valid.
        ...(tokens.refreshToken ? { refresh_token_encrypted: encryptSecret(key, tokens.refreshToken) } : {}),
        token_expires_at: tokens.expiresIn ? new Date(at.getTime() + tokens.expiresIn * 1000) : null,
        ...(tokens.scope ? { scopes: tokens.scope } : {}),
        updated_at: at,
      })
      .where('id', '=', connectionId)
      .execute();
    return tokens.accessToken;
  });
}
