import { bindTenant, type CentralDb } from '@pos/db';
import { AppError } from '@pos/kernel';
import { ProviderError } from '@pos/providers/shared/provider-error';
import { DeliveryAClient } from '@pos/providers/delivery-a/delivery-a-client';
import { DeliveryBClient } from '@pos/providers/delivery-b/delivery-b-client';
import { PlatformAClient } from '@pos/providers/platform-a/platform-a-client';
import { RegisterDClient } from '@pos/providers/register-d/register-d-client';
import type { OAuthClientConfig } from '@pos/providers/oauth/oauth-client';
import { syncDeliveryAAvailability, syncDeliveryAMenu, type LocationScope } from './delivery-a.ts';
import { syncDeliveryBMenu } from './delivery-b.ts';
import { syncRegisterACatalog } from './register-a-admin.ts';
import { registerDVendors, runRegisterDSync } from './register-d-admin.ts';
import { RegisterBClient } from '@pos/providers/register-b/register-b-client';
import { runRegisterBSync } from './register-b-sync.ts';
import { runRegisterCSync } from './register-c-sync.ts';
import { registerCConfigFromEnv } from './register-c-access.ts';
import { decryptSecret, parseTokenKey, type TokenKey } from './token-crypto.ts';

/**
 * What a scheduled sync does at each provider (issue 17 item 5, "runs the sync job"): one run function
 * per provider kind, each calling the provider through its client built from configuration. The
 * worker's `integration.auto-sync` job picks the runner of the connection's provider and records the
 * outcome on the schedule (`integration_auto_syncs.last_*`) and in the connection's log.
 */
export interface SyncConnection {
  readonly id: string;
  readonly provider: string;
  readonly externalRef: string;
  readonly merchantId: string;
  readonly tenantDatabase: string;
  readonly locationId: string | null;
  readonly status: string;
  readonly accessTokenEncrypted: string | null;
  /** When the stored access token expires (register-c refreshes it a minute before). */
  readonly tokenExpiresAt: Date | null;
}

export type SyncOutcome =
  | { readonly status: 'ok'; readonly counts: Readonly<Record<string, number>> }
  /** The provider's client is not configured here (or not wired yet): nothing was called. */
  | { readonly status: 'not_configured'; readonly detail: string }
  /** The provider refused or failed; `retry` when trying again later can help (unreachable, 5xx). */
  | { readonly status: 'error'; readonly detail: string; readonly retry: boolean };

export interface SyncContext {
  readonly central: CentralDb;
  readonly connection: SyncConnection;
  readonly now: () => Date;
}

export type SyncRunner = (ctx: SyncContext) => Promise<SyncOutcome>;

/** The provider clients the runners use; a missing one makes its runner answer `not_configured`. */
export interface SyncClients {
  readonly deliveryA: DeliveryAClient | null;
  readonly deliveryB: DeliveryBClient | null;
  /** platform-a's API; a connection's own OAuth token wins over the configured access token. */
  readonly platformA: { readonly baseUrl: string; readonly accessToken: string | null; readonly currency: string } | null;
  /** register-a's API base; tokens are the location records' own. */
  readonly registerA: { readonly baseUrl: string } | null;
  /** register-b's partner API (the partner token is configuration, not per connection). */
  readonly registerB?: RegisterBClient | null;
  /** register-c's API base; the token is the connection's own (OAuth), refreshed at `oauth`'s token endpoint. */
  readonly registerC: { readonly apiUrl: string; readonly oauth?: OAuthClientConfig | null } | null;
  /** Decrypts stored tokens (`INTEGRATION_TOKEN_KEY`). */
  readonly tokenKey: TokenKey | null;
  /** register-d's transport and the vendor words it serves; absent or null: `not_configured`. */
  readonly registerD?: { readonly client: RegisterDClient; readonly vendors: readonly string[] } | null;
}

export function syncClientsFromEnv(env: {
  DELIVERY_A_API_URL?: string | undefined;
  DELIVERY_A_API_TOKEN?: string | undefined;
  DELIVERY_B_API_URL?: string | undefined;
  DELIVERY_B_API_TOKEN?: string | undefined;
  PLATFORM_A_BASE_URL?: string | undefined;
  PLATFORM_A_ACCESS_TOKEN?: string | undefined;
  REGISTER_A_BASE_URL?: string | undefined;
  REGISTER_B_API_URL?: string | undefined;
  REGISTER_B_API_TOKEN?: string | undefined;
  REGISTER_C_API_URL?: string | undefined;
  REGISTER_C_OAUTH_URL?: string | undefined;
  REGISTER_C_CLIENT_ID?: string | undefined;
  REGISTER_C_CLIENT_SECRET?: string | undefined;
  INTEGRATION_TOKEN_KEY?: string | undefined;
  PAYMENT_CURRENCY?: string | undefined;
  REGISTER_D_API_URL?: string | undefined;
  REGISTER_D_API_TOKEN?: string | undefined;
  REGISTER_D_VENDORS?: string | undefined;
}): SyncClients {
  return {
    deliveryA: env.DELIVERY_A_API_URL && env.DELIVERY_A_API_TOKEN ? new DeliveryAClient({ baseUrl: env.DELIVERY_A_API_URL, apiToken: env.DELIVERY_A_API_TOKEN }) : null,
    deliveryB: env.DELIVERY_B_API_URL && env.DELIVERY_B_API_TOKEN ? new DeliveryBClient({ baseUrl: env.DELIVERY_B_API_URL, apiToken: env.DELIVERY_B_API_TOKEN }) : null,
    platformA: env.PLATFORM_A_BASE_URL ? { baseUrl: env.PLATFORM_A_BASE_URL, accessToken: env.PLATFORM_A_ACCESS_TOKEN ?? null, currency: env.PAYMENT_CURRENCY ?? 'EUR' } : null,
    registerA: env.REGISTER_A_BASE_URL ? { baseUrl: env.REGISTER_A_BASE_URL } : null,
    registerB: env.REGISTER_B_API_URL && env.REGISTER_B_API_TOKEN ? new RegisterBClient({ baseUrl: env.REGISTER_B_API_URL, apiToken: env.REGISTER_B_API_TOKEN }) : null,
    registerC: env.REGISTER_C_API_URL ? { apiUrl: env.REGISTER_C_API_URL, oauth: registerCConfigFromEnv(env).oauth ?? null } : null,
    tokenKey: parseTokenKey(env.INTEGRATION_TOKEN_KEY),
    registerD:
      env.REGISTER_D_API_URL && env.REGISTER_D_API_TOKEN
        ? { client: new RegisterDClient({ baseUrl: env.REGISTER_D_API_URL, apiToken: env.REGISTER_D_API_TOKEN }), vendors: registerDVendors(env.REGISTER_D_VENDORS) }
        : null,
  };
}

/** Items read and pushed per platform-a catalog call (its batch upsert takes 1,000 objects per batch). */
export const PLATFORM_A_PUSH_PAGE = 1000;

const notConfigured = (detail: string): SyncOutcome => ({ status: 'not_configured', detail });

/** A location-scoped provider needs the connection's location. */
function scopeOf(c: SyncConnection): LocationScope | null {
  return c.locationId ? { merchant: { id: c.merchantId, tenant_database: c.tenantDatabase }, locationId: c.locationId } : null;
}

/**
 * The registry: provider kind -> run function (`register-d:<vendor>` providers share the register-d entry).
 */
export function syncRunners(clients: SyncClients): Readonly<Record<string, SyncRunner>> {
  return {
    /** Catalog push (our side of platform-a's two-way catalog sync): the merchant's visible items with their price. */
    'platform-a': async ({ central, connection: c }) => {
      if (!clients.platformA) return notConfigured('platform-a is not configured (PLATFORM_A_BASE_URL).');
      const own = c.accessTokenEncrypted && clients.tokenKey ? decryptSecret(clients.tokenKey, c.accessTokenEncrypted) : null;
      const token = own ?? clients.platformA.accessToken;
      if (!token) return notConfigured('No platform-a access token: connect the account or set PLATFORM_A_ACCESS_TOKEN.');
      const tdb = bindTenant(central, c.tenantDatabase);
      const client = new PlatformAClient({ baseUrl: clients.platformA.baseUrl, accessToken: token });
      const run = `sync-${c.id}-${Date.now()}`;
      // Every visible item, a page at a time (keyset on name, id): a catalog larger than one page is
      // pushed whole, never cut at a limit without a word.
      let pushed = 0;
      let after: { name: string; id: string } | null = null;
      for (let page = 0; ; page++) {
        let q = tdb.selectFrom('items').select(['id', 'name', 'unit_price']).where('visible', '=', true);
        if (after) {
          const { name, id } = after;
          q = q.where((eb) => eb.or([eb('name', '>', name), eb.and([eb('name', '=', name), eb('id', '>', id)])]));
        }
        const items = await q.orderBy('name').orderBy('id').limit(PLATFORM_A_PUSH_PAGE).execute();
        if (!items.length) break;
        pushed += await client.upsertCatalog(`${run}-p${page}`, items.map((i) => ({ id: i.id, name: i.name, price: i.unit_price, currency: clients.platformA!.currency })));
        if (items.length < PLATFORM_A_PUSH_PAGE) break;
        after = items[items.length - 1]!;
      }
      return { status: 'ok', counts: { items: pushed } };
    },
    /** Menu, then item availability, of the connection's location. */
    'delivery-a': async ({ central, connection: c, now }) => {
      const scope = scopeOf(c);
      if (!clients.deliveryA) return notConfigured('delivery-a is not configured (DELIVERY_A_API_URL, DELIVERY_A_API_TOKEN).');
      if (!scope) return { status: 'error', detail: 'The delivery-a connection has no location.', retry: false };
      const tdb = bindTenant(central, c.tenantDatabase);
      const menu = await syncDeliveryAMenu(central, tdb, clients.deliveryA, scope, now());
      const availability = await syncDeliveryAAvailability(central, tdb, clients.deliveryA, scope, now());
      return { status: 'ok', counts: { items: menu.items, availability: availability.updated } };
    },
    /** Menu with availability (delivery-b has no separate availability push). */
    'delivery-b': async ({ central, connection: c, now }) => {
      const scope = scopeOf(c);
      if (!clients.deliveryB) return notConfigured('delivery-b is not configured (DELIVERY_B_API_URL, DELIVERY_B_API_TOKEN).');
      if (!scope) return { status: 'error', detail: 'The delivery-b connection has no location.', retry: false };
      const menu = await syncDeliveryBMenu(central, bindTenant(central, c.tenantDatabase), clients.deliveryB, scope, now());
      return { status: 'ok', counts: { items: menu.items } };
    },
    /** Catalog sync of the location's register-a store (rows: name, description, reference, price, delete). */
    'register-a': async ({ central, connection: c, now }) => {
      if (!clients.registerA || !clients.tokenKey) return notConfigured('register-a is not configured (REGISTER_A_BASE_URL, INTEGRATION_TOKEN_KEY).');
      if (!c.locationId) return { status: 'error', detail: 'The register-a record has no location.', retry: false };
      const r = await syncRegisterACatalog(
        { central, tdb: bindTenant(central, c.tenantDatabase), merchantId: c.merchantId, config: { baseUrl: clients.registerA.baseUrl, tokenKey: clients.tokenKey }, now },
        c.locationId,
      );
      return { status: 'ok', counts: { created: r.created, updated: r.updated, priced: r.priced, deleted: r.deleted, unsupported: r.unsupported.length } };
    },
    /** Catalog pull of the mapped branches' products (register-b-sync.ts: register-b is the source of truth). */
    'register-b': async ({ central, connection: c, now }) => {
      if (!clients.registerB) return notConfigured('register-b is not configured (REGISTER_B_API_URL, REGISTER_B_API_TOKEN).');
      const counts = await runRegisterBSync(central, bindTenant(central, c.tenantDatabase), clients.registerB, { merchantId: c.merchantId, connectionId: c.id, accountId: c.externalRef }, now());
      return { status: 'ok', counts: { ...counts } };
    },
    /** The location's menu pushed to the vendor's site through the transport (`register-d:<vendor>` providers). */
    'register-d': (ctx) => runRegisterDSync(ctx, clients.registerD ?? null),
    /** Every active mapping: register-c items -> our catalog rows linked by sku (register-c-sync.ts). */
    'register-c': (ctx) => runRegisterCSync(ctx, { apiUrl: clients.registerC?.apiUrl ?? null, tokenKey: clients.tokenKey, oauth: clients.registerC?.oauth ?? null }),
  };
}

/** The runner of a provider word; `register-d:<vendor>` providers share the register-d entry. */
export function runnerFor(runners: Readonly<Record<string, SyncRunner>>, provider: string): SyncRunner | null {
  return runners[provider] ?? (provider.startsWith('register-d') ? (runners['register-d'] ?? null) : null);
}

/** A failure as a recorded outcome: unreachable, timeouts, 429 and 5xx are worth retrying; refusals are not. */
export function failureOutcome(e: unknown): SyncOutcome {
  if (e instanceof ProviderError) {
    const retry = e.kind === 'network' || e.kind === 'timeout' || (e.kind === 'http' && (e.status === null || e.status >= 500 || e.status === 429));
    return { status: 'error', detail: e.message.slice(0, 500), retry };
  }
  if (e instanceof AppError) return { status: 'error', detail: e.message.slice(0, 500), retry: e.code === 'unavailable' };
  return { status: 'error', detail: (e instanceof Error ? e.message : String(e)).slice(0, 500), retry: true };
}

/** The connection of a schedule, with its merchant's tenant schema; null when it is gone. */
export async function syncConnection(central: CentralDb, connectionId: string): Promise<SyncConnection | null> {
  const r = await central
    .selectFrom('integration_connections as c')
    .innerJoin('merchants as m', 'm.id', 'c.merchant_id')
    .select(['c.id', 'c.provider', 'c.external_ref', 'c.merchant_id', 'm.tenant_database', 'c.location_id', 'c.status', 'c.access_token_encrypted', 'c.token_expires_at'])
    .where('c.id', '=', connectionId)
    .executeTakeFirst();
  if (!r) return null;
  return { id: r.id, provider: r.provider, externalRef: r.external_ref, merchantId: r.merchant_id, tenantDatabase: r.tenant_database, locationId: r.location_id, status: r.status, accessTokenEncrypted: r.access_token_encrypted, tokenExpiresAt: r.token_expires_at };
}

/** Runs the provider sync of a connection: the runner's outcome, or the failure as one. */
export async function runProviderSync(ctx: SyncContext, runners: Readonly<Record<string, SyncRunner>>): Promise<SyncOutcome> {
  const run = runnerFor(runners, ctx.connection.provider);
  if (!run) return notConfigured(`No sync is defined for ${ctx.connection.provider}.`);
  try {
    return await run(ctx);
  } catch (e) {
    return failureOutcome(e);
  }
}
