import type { CentralDb } from '@pos/db';
import { OAuthExchangeError, refreshAccessToken, type OAuthClientConfig } from '@pos/providers/oauth/oauth-client';
import { decryptSecret, encryptSecret, type TokenKey } from './token-crypto.ts';

/** A stored token expiring within this margin is refreshed before it is used. */
export const REFRESH_MARGIN_MS = 60_000;

/** How long a refresh may hold its lease (beyond the token endpoint's 10 s timeout); a crashed holder's lease lapses. */
export const REFRESH_LEASE_MS = 15_000;

/** Between looks at the row while another process holds the lease. */
const WAIT_STEP_MS = 50;

export const expiresSoon = (expiresAt: Date | null, now: Date): boolean => expiresAt !== null && new Date(expiresAt).getTime() <= now.getTime() + REFRESH_MARGIN_MS;

type TokenRow = { status: string; access_token_encrypted: string | null; refresh_token_encrypted: string | null; token_expires_at: Date | null; token_refresh_until: Date | null };

const readRow = (db: CentralDb, id: string): Promise<TokenRow | undefined> =>
  db.selectFrom('integration_connections').select(['status', 'access_token_encrypted', 'refresh_token_encrypted', 'token_expires_at', 'token_refresh_until']).where('id', '=', id).executeTakeFirst() as Promise<
    TokenRow | undefined
  >;

/** The stored token when it is usable in place of `stale`: another process refreshed it. */
function fresher(key: TokenKey, row: TokenRow | undefined, stale: string, now: Date): string | null {
  if (!row || row.status !== 'active' || !row.access_token_encrypted) return null;
  const current = decryptSecret(key, row.access_token_encrypted);
  return current && current !== stale && !expiresSoon(row.token_expires_at, now) ? current : null;
}

/**
 * Refreshes the register-c connection's access token with its stored refresh token, after `stale`
 * expired or was refused. The provider rotates refresh tokens (the one presented stops working), so
 * two processes must never present the same one. One of them claims a short lease on the row
 * (`token_refresh_until`, committed at once), calls the token endpoint with no transaction open
 * (DESIGN 2), stores the new tokens encrypted and releases the lease; the others wait for the lease
 * to end and use the token it stored. Answers the token to use, or null when there is none: no
 * refresh token, the connection gone or disabled, its tokens replaced by a connect meanwhile, the provider refusing (`invalid_grant`) or
 * unreachable; the tokens are then left as they were.
 */
export async function refreshRegisterCToken(db: CentralDb, oauth: OAuthClientConfig, key: TokenKey, connectionId: string, stale: string, now: () => Date): Promise<string | null> {
  const deadline = Date.now() + REFRESH_LEASE_MS + 1000;
  for (;;) {
    const row = await readRow(db, connectionId);
    if (!row || row.status !== 'active' || !row.access_token_encrypted) return null;
    const ready = fresher(key, row, stale, now());
    if (ready) return ready;
    const claimed = await db
      .updateTable('integration_connections')
      .set({ token_refresh_until: new Date(now().getTime() + REFRESH_LEASE_MS) })
      .where('id', '=', connectionId)
      .where('status', '=', 'active')
      // Only over the row as just read: a refresh that landed in between is used instead.
      .where('access_token_encrypted', '=', row.access_token_encrypted)
      .where((eb) => eb.or([eb('token_refresh_until', 'is', null), eb('token_refresh_until', '<=', now())]))
      .returning(['refresh_token_encrypted'])
      .executeTakeFirst();
    if (claimed) return refreshUnderLease(db, oauth, key, connectionId, claimed.refresh_token_encrypted, now);
    // Another process holds the lease (or just refreshed): look again shortly.
    if (Date.now() > deadline) return null;
    await Bun.sleep(WAIT_STEP_MS);
  }
}

async function refreshUnderLease(db: CentralDb, oauth: OAuthClientConfig, key: TokenKey, connectionId: string, refreshEncrypted: string | null, now: () => Date): Promise<string | null> {
  const release = () => db.updateTable('integration_connections').set({ token_refresh_until: null }).where('id', '=', connectionId).execute();
  const refreshToken = refreshEncrypted ? decryptSecret(key, refreshEncrypted) : null;
  if (!refreshToken) {
    await release();
    return null;
  }
  let tokens;
  try {
    tokens = await refreshAccessToken(oauth, refreshToken);
  } catch (e) {
    await release();
    if (e instanceof OAuthExchangeError) return null;
    throw e;
  }
  const at = now();
  const saved = await db
    .updateTable('integration_connections')
    .set({
      access_token_encrypted: encryptSecret(key, tokens.accessToken),
      // An answer without a refresh token means the provider keeps the presented one valid.
      ...(tokens.refreshToken ? { refresh_token_encrypted: encryptSecret(key, tokens.refreshToken) } : {}),
      token_expires_at: tokens.expiresIn ? new Date(at.getTime() + tokens.expiresIn * 1000) : null,
      ...(tokens.scope ? { scopes: tokens.scope } : {}),
      token_refresh_until: null,
      updated_at: at,
    })
    .where('id', '=', connectionId)
    // Only over the refresh token presented: a connect that replaced the row's tokens meanwhile (another
    // account, or the tokens dropped with the row disabled) keeps its own; these are then not ours to use.
    .where('status', '=', 'active')
    .where('refresh_token_encrypted', '=', refreshEncrypted!)
    .returning('id')
    .executeTakeFirst();
  if (!saved) {
    await release();
    return null;
  }
  return tokens.accessToken;
}

/**
 * The same refresh for any connection row holding OAuth tokens (`integration_connections`): nothing in
 * it is register-c's but the name. delivery-b's account uses it (`merchantDeliveryBStores`).
 */
export const refreshConnectionToken = refreshRegisterCToken;
