import { errors, AppError } from '@pos/kernel';
import { isUuid } from '@pos/domain/ids';
import type { CentralDb } from '@pos/db';
import { ProviderError } from '@pos/providers/shared/provider-error';
import type { OAuthClientConfig } from '@pos/providers/oauth/oauth-client';
import { RegisterCClient } from '@pos/providers/register-c/register-c-client';
import { locationExists } from '../auth/auth-records.ts';
import type { MerchantIntegrationScope } from './merchant-integrations.ts';
import { expiresSoon, refreshRegisterCToken } from './register-c-token-refresh.ts';
import { decryptSecret, parseTokenKey, type TokenKey } from './token-crypto.ts';

/**
 * How the register-c use cases reach the merchant's register-c account: the merchant's connection
 * (provider `register-c`) with its stored OAuth access token, decrypted with INTEGRATION_TOKEN_KEY,
 * and the API at REGISTER_C_API_URL. No connection, a disabled one, or no usable token is 404 on the
 * integration (as requireMerchantConnection); the API not configured here is 503. An access token
 * that expires within a minute, or that register-c refuses (401), is refreshed once with the stored
 * refresh token at the token endpoint (register-c-token-refresh.ts) and the call made with the new one.
 */
export interface RegisterCConfig {
  /** REGISTER_C_API_URL; null: register-c calls answer 503. */
  readonly apiUrl: string | null;
  readonly tokenKey: TokenKey | null;
  readonly timeoutMs?: number;
  /** The token endpoint and our client there (REGISTER_C_OAUTH_URL, _CLIENT_ID, _CLIENT_SECRET); absent: tokens are never refreshed. */
  readonly oauth?: OAuthClientConfig | null;
}

export interface RegisterCEnv {
  REGISTER_C_API_URL?: string | undefined;
  INTEGRATION_TOKEN_KEY?: string | undefined;
  REGISTER_C_OAUTH_URL?: string | undefined;
  REGISTER_C_CLIENT_ID?: string | undefined;
  REGISTER_C_CLIENT_SECRET?: string | undefined;
}

export function registerCConfigFromEnv(env: RegisterCEnv): RegisterCConfig {
  const oauth =
    env.REGISTER_C_OAUTH_URL && env.REGISTER_C_CLIENT_ID && env.REGISTER_C_CLIENT_SECRET
      ? { provider: 'register-c' as const, baseUrl: env.REGISTER_C_OAUTH_URL, clientId: env.REGISTER_C_CLIENT_ID, clientSecret: env.REGISTER_C_CLIENT_SECRET, timeoutMs: 10_000 }
      : null;
  return { apiUrl: env.REGISTER_C_API_URL ?? null, tokenKey: parseTokenKey(env.INTEGRATION_TOKEN_KEY), oauth };
}

/** `now` (the request's clock) decides whether the stored token is about to expire; default the system time. */
export type RegisterCScope = Pick<MerchantIntegrationScope, 'db' | 'tdb' | 'merchant'> & { readonly now?: Date };

export interface RegisterCAccess {
  readonly connectionId: string;
  readonly accountId: string;
  readonly settings: Record<string, unknown>;
  readonly client: RegisterCClient;
}

/** What a client is built from: the connection row's id and stored token. */
export interface RegisterCConnectionToken {
  readonly id: string;
  readonly accessTokenEncrypted: string | null;
  readonly tokenExpiresAt: Date | null;
}

/**
 * The client of one connection row (the administration, the scheduled sync and the order dispatch):
 * null without a usable stored token. The token is refreshed first when it expires within a minute,
 * or when register-c refuses it (401, then the call is retried once with the new token); one refresh
 * attempt per client, so a refused refresh is not repeated and the call fails as register-c answered.
 */
export async function registerCClientFor(db: CentralDb, config: RegisterCConfig, conn: RegisterCConnectionToken, now: () => Date = () => new Date()): Promise<RegisterCClient | null> {
  if (!conn.accessTokenEncrypted || !config.tokenKey || !config.apiUrl) return null;
  const stored = decryptSecret(config.tokenKey, conn.accessTokenEncrypted);
  if (!stored) return null;
  const key = config.tokenKey;
  const oauth = config.oauth ?? null;
  let attempt: Promise<string | null> | null = null;
  const renewToken = oauth ? (stale: string) => (attempt ??= refreshRegisterCToken(db, oauth, key, conn.id, stale, now)) : null;
  let token = stored;
  if (renewToken && expiresSoon(conn.tokenExpiresAt, now())) token = (await renewToken(stored)) ?? stored;
  return new RegisterCClient({ baseUrl: config.apiUrl, accessToken: token, ...(config.timeoutMs ? { timeoutMs: config.timeoutMs } : {}), ...(renewToken ? { renewToken } : {}) });
}

/** The merchant's active register-c connection and a client with its token. */
export async function registerCAccess(scope: RegisterCScope, config: RegisterCConfig): Promise<RegisterCAccess> {
  const c = await scope.db
    .selectFrom('integration_connections')
    .select(['id', 'external_ref', 'status', 'access_token_encrypted', 'token_expires_at', 'settings'])
    .where('merchant_id', '=', scope.merchant.id)
    .where('provider', '=', 'register-c')
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .executeTakeFirst();
  if (!c || c.status !== 'active' || !c.access_token_encrypted) throw errors.notFound('integration');
  if (!config.apiUrl) throw errors.unavailable('register-c is not configured.');
  const client = await registerCClientFor(scope.db, config, { id: c.id, accessTokenEncrypted: c.access_token_encrypted, tokenExpiresAt: c.token_expires_at }, () => scope.now ?? new Date());
  // A token we cannot decrypt (key rotated) is as good as none: the merchant reconnects.
  if (!client) throw errors.notFound('integration');
  return { connectionId: c.id, accountId: c.external_ref, settings: (c.settings ?? {}) as Record<string, unknown>, client };
}

export interface RegisterCMappingRow {
  readonly locationId: string;
  readonly registerCLocationId: string;
  readonly status: 'active' | 'paused';
  readonly orderSettings: Record<string, unknown>;
  readonly menuSource: boolean;
  readonly suggestionDismissedDigest: string | null;
  readonly lastSyncedAt: Date | null;
  readonly lastSyncCounts: Record<string, number> | null;
}

/**
 * Our location `locationId` and its register-c mapping: not a location of the merchant (another
 * merchant's, or not an id) is 404 `location`; a location without a mapping is 404 `mapping`.
 */
export async function registerCMapping(scope: RegisterCScope, access: Pick<RegisterCAccess, 'connectionId'>, locationId: string): Promise<RegisterCMappingRow> {
  if (!isUuid(locationId) || !(await locationExists(scope.tdb, locationId))) throw errors.notFound('location');
  const r = await mappingQuery(scope.db).where('merchant_id', '=', scope.merchant.id).where('location_id', '=', locationId).where('connection_id', '=', access.connectionId).executeTakeFirst();
  if (!r) throw errors.notFound('mapping');
  return mappingRow(r);
}

export const mappingQuery = (db: CentralDb) =>
  db
    .selectFrom('register_c_mappings')
    .select(['location_id', 'register_c_location_id', 'status', 'order_settings', 'menu_source', 'suggestion_dismissed_digest', 'last_synced_at', 'last_sync_counts']);

export function mappingRow(r: {
  location_id: string;
  register_c_location_id: string;
  status: string;
  order_settings: Record<string, unknown>;
  menu_source: boolean;
  suggestion_dismissed_digest: string | null;
  last_synced_at: Date | null;
  last_sync_counts: Record<string, number> | null;
}): RegisterCMappingRow {
  return {
    locationId: r.location_id,
    registerCLocationId: r.register_c_location_id,
    status: r.status as 'active' | 'paused',
    orderSettings: r.order_settings ?? {},
    menuSource: r.menu_source,
    suggestionDismissedDigest: r.suggestion_dismissed_digest,
    lastSyncedAt: r.last_synced_at ? new Date(r.last_synced_at) : null,
    lastSyncCounts: r.last_sync_counts,
  };
}

/**
 * A register-c failure as our error: its refusal of the stored token is 409 `provider_token_rejected`
 * (reconnect; never a 401, which would sign the back-office user out); an id the caller named that
 * register-c does not know is 404 on `notFoundModel`; a refusal of the input is 422
 * `provider_refused` with register-c's message; unreachable, 5xx or an unreadable answer is 503.
 */
export function registerCFailure(e: unknown, notFoundModel?: string): never {
  if (e instanceof ProviderError) {
    const text = e.message.replace(/^register-c: /, '').slice(0, 300);
    if (e.kind === 'http' && e.status === 401) throw errors.conflict('register-c refused the stored access token: reconnect the integration.', { reason: 'provider_token_rejected' });
    if (e.kind === 'http' && e.status === 404 && notFoundModel) throw errors.notFound(notFoundModel);
    if (e.kind === 'http' && e.status === 404) throw errors.conflict(`register-c does not know the mapped location: ${text}`, { reason: 'provider_not_found' });
    if (e.kind === 'http' && e.status !== null && e.status >= 400 && e.status < 500 && e.status !== 429) throw errors.businessRule(`register-c refused the request: ${text}`, { reason: 'provider_refused' });
    throw errors.unavailable('register-c could not be reached.', { reason: 'provider_unavailable' });
  }
  throw e;
}

/** Runs a provider call, translating its failure. */
export async function viaRegisterC<T>(call: () => Promise<T>, notFoundModel?: string): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (e instanceof AppError) throw e;
    return registerCFailure(e, notFoundModel);
  }
}
