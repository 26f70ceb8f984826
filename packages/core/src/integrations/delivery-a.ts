import type { CentralDb, TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { ProviderError } from '@pos/providers/shared/provider-error';
import type { DeliveryAClient, SiteStatus } from '@pos/providers/delivery-a/delivery-a-client';
import { deliveryMenuItems } from './delivery-menu.ts';
import type { LocationConnectionRow } from './connections.ts';
import { marketplaceConnections } from './marketplace-connections.ts';
import { claimConnection, finishConnectClaim, releaseConnectClaim, type ConnectClaim } from './connect-claims.ts';

/**
 * delivery-a administration per location (spec 1 "delivery-a"): the location's connection in central
 * `integration_connections` (provider `delivery-a`, `external_ref` the marketplace store id), the calls
 * to delivery-a's store API through its client, and a log of what was done (`integration_events`, kind
 * `admin`, beside the webhook events of the store).
 */
const PROVIDER = 'delivery-a';
const LABEL = 'delivery-a store';

export interface LocationScope {
  readonly merchant: { readonly id: string; readonly tenant_database: string };
  readonly locationId: string;
}

export interface DeliveryASettings {
  readonly auto_accept_orders: boolean;
  readonly prep_time_minutes: number;
}
const DEFAULT_SETTINGS: DeliveryASettings = { auto_accept_orders: false, prep_time_minutes: 15 };

export interface DeliveryAStatus {
  readonly enabled: boolean;
  readonly store_id: string | null;
  readonly status: string;
  readonly connected_at: string | null;
  readonly menu_synced_at: string | null;
  readonly settings: DeliveryASettings;
}

type ConnectionRow = LocationConnectionRow;

const { connectionOf, activeConnection, logAction, disable } = marketplaceConnections(PROVIDER, LABEL);

function settingsOf(c: ConnectionRow | null): DeliveryASettings {
  const s = (c?.settings ?? {}) as Partial<DeliveryASettings>;
  return {
    auto_accept_orders: typeof s.auto_accept_orders === 'boolean' ? s.auto_accept_orders : DEFAULT_SETTINGS.auto_accept_orders,
    prep_time_minutes: typeof s.prep_time_minutes === 'number' ? s.prep_time_minutes : DEFAULT_SETTINGS.prep_time_minutes,
  };
}

function statusOf(c: ConnectionRow | null): DeliveryAStatus {
  return {
    enabled: c?.status === 'active',
    store_id: c?.external_ref ?? null,
    status: c?.status ?? 'disconnected',
    connected_at: c?.connected_at ? new Date(c.connected_at).toISOString() : null,
    menu_synced_at: c?.menu_synced_at ? new Date(c.menu_synced_at).toISOString() : null,
    settings: settingsOf(c),
  };
}

/** What a provider failure means to the back office: an unknown store is the caller's input, the rest is 503. */
function providerFailure(e: unknown, field?: string): never {
  if (e instanceof ProviderError) {
    if (e.kind === 'http' && e.status === 404 && field) throw errors.field(field, 'The store could not be found at delivery-a.');
    if (e.kind === 'http' && e.status === 409) throw errors.conflict(`delivery-a refused the request: ${e.message.replace(/^delivery-a: /, '')}`);
    throw errors.unavailable('delivery-a could not be reached.');
  }
  throw e;
}

export async function deliveryAStatus(db: CentralDb, scope: LocationScope): Promise<DeliveryAStatus> {
  return statusOf(await connectionOf(db, scope));
}

export const LINK_CODE_REQUIRED = 'The link code field is required.';
export const LINK_CODE_INVALID = 'The link code is not valid for this delivery-a store.';

/**
 * Enables delivery-a for the location with the marketplace store `storeId`: the store must exist at
 * delivery-a, and belong to no other merchant or location here (409); delivery-a is told our location id.
 * One API token reaches every store, so the store's owner proves it with the store's `link_code` (from
 * delivery-a's merchant portal), checked by delivery-a when the integration is turned on: missing or wrong
 * is a 422 on `link_code`, nothing written.
 */
export async function enableDeliveryA(db: CentralDb, client: DeliveryAClient, scope: LocationScope, input: { store_id: string; link_code?: string } & Partial<DeliveryASettings>, now: Date): Promise<DeliveryAStatus> {
  const linkCode = input.link_code;
  if (linkCode === undefined) throw errors.field('link_code', LINK_CODE_REQUIRED);
  const claim: ConnectClaim = { provider: PROVIDER, externalRef: input.store_id, merchantId: scope.merchant.id, locationId: scope.locationId };
  await claimConnection(db, claim, LABEL, now);
  const previous = await connectionOf(db, scope);
  try {
    await client.getStore(input.store_id);
    await client.enableIntegration(input.store_id, scope.locationId, linkCode);
    // The store this location lets go stops sending us orders (as delivery-b's connect does): left on, its
    // customers went on paying for orders that reached no location.
    // Failing that (delivery-a away), the switch goes on: the old store's events are then logged loudly
    // as reaching a disabled connection (integration-webhook.ts).
    if (previous && previous.status === 'active' && previous.external_ref !== input.store_id) await client.disableIntegration(previous.external_ref).catch(() => undefined);
  } catch (e) {
    await releaseConnectClaim(db, claim);
    if (e instanceof ProviderError && e.kind === 'http' && e.status === 403 && e.code === 'invalid_link_code') throw errors.field('link_code', LINK_CODE_INVALID);
    providerFailure(e, 'store_id');
  }
  const settings = { ...settingsOf(previous), ...pickSettings(input) };
  // One store per location: a previous store of this location is let go.
  const id = await finishConnectClaim(db, claim, LABEL, { settings: JSON.stringify(settings), now });
  await logAction(db, scope, id, 'enabled', input.store_id, now);
  return statusOf(await connectionOf(db, scope));
}

function pickSettings(input: Partial<DeliveryASettings>): Partial<DeliveryASettings> {
  return {
    ...(input.auto_accept_orders !== undefined ? { auto_accept_orders: input.auto_accept_orders } : {}),
    ...(input.prep_time_minutes !== undefined ? { prep_time_minutes: input.prep_time_minutes } : {}),
  };
}

/** Updates the location's delivery-a settings (no provider call). */
export async function updateDeliveryA(db: CentralDb, scope: LocationScope, input: Partial<DeliveryASettings>, now: Date): Promise<DeliveryAStatus> {
  const c = await activeConnection(db, scope);
  const settings = { ...settingsOf(c), ...pickSettings(input) };
  await db.updateTable('integration_connections').set({ settings: JSON.stringify(settings), updated_at: now }).where('id', '=', c.id).execute();
  await logAction(db, scope, c.id, 'updated', null, now);
  return statusOf(await connectionOf(db, scope));
}

/** Disables: delivery-a is told first (an unknown store there is fine), then the connection is marked disabled. */
export async function disableDeliveryA(db: CentralDb, client: DeliveryAClient, scope: LocationScope, now: Date): Promise<DeliveryAStatus> {
  return disable(db, scope, now, { tellProvider: (storeId) => client.disableIntegration(storeId), failure: providerFailure, statusOf });
}


/** Pushes the location's delivery menu (menu sync is push-only). */
export async function syncDeliveryAMenu(db: CentralDb, tdb: TenantDb, client: DeliveryAClient, scope: LocationScope, now: Date): Promise<{ items: number }> {
  const c = await activeConnection(db, scope);
  const items = await deliveryMenuItems(tdb, scope.locationId);
  let pushed = 0;
  try {
    pushed = await client.pushMenu(c.external_ref, items);
  } catch (e) {
    providerFailure(e);
  }
  await db.updateTable('integration_connections').set({ menu_synced_at: now, updated_at: now }).where('id', '=', c.id).execute();
  await logAction(db, scope, c.id, 'menu_synced', String(pushed), now);
  return { items: pushed };
}

/** Pushes item availability of the location. */
export async function syncDeliveryAAvailability(db: CentralDb, tdb: TenantDb, client: DeliveryAClient, scope: LocationScope, now: Date): Promise<{ updated: number }> {
  const c = await activeConnection(db, scope);
  const items = await deliveryMenuItems(tdb, scope.locationId);
  let updated = 0;
  try {
    updated = await client.pushAvailability(c.external_ref, items.map((i) => ({ id: i.id, available: i.available })));
  } catch (e) {
    providerFailure(e);
  }
  await logAction(db, scope, c.id, 'availability_synced', String(updated), now);
  return { updated };
}

export const DEFAULT_LOG_LIMIT = 50;
/** Spec 1 limits: `limit` default 50, clamped to 1-200. */
export function clampLogLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return DEFAULT_LOG_LIMIT;
  return Math.min(200, Math.max(1, Math.trunc(limit)));
}

export interface DeliveryALogEntry {
  readonly id: string;
  readonly kind: string;
  readonly event_type: string;
  readonly status: string;
  readonly reference: string | null;
  readonly created_at: string;
}

/** The newest log entries of the location's connection (webhook events and administration), newest first. */
export async function deliveryALogs(db: CentralDb, scope: LocationScope, limit: number | undefined): Promise<DeliveryALogEntry[]> {
  const c = await connectionOf(db, scope);
  if (!c) throw errors.notFound('delivery-a integration');
  const rows = await db
    .selectFrom('integration_events')
    .select(['id', 'kind', 'event_type', 'status', 'external_id', 'created_at'])
    .where('connection_id', '=', c.id)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(clampLogLimit(limit))
    .execute();
  return rows.map((r) => ({ id: r.id, kind: r.kind, event_type: r.event_type, status: r.status, reference: r.external_id, created_at: new Date(r.created_at).toISOString() }));
}

export async function deliveryASiteStatus(db: CentralDb, client: DeliveryAClient, scope: LocationScope): Promise<SiteStatus> {
  const c = await activeConnection(db, scope);
  try {
    return await client.siteStatus(c.external_ref);
  } catch (e) {
    return providerFailure(e);
  }
}

export async function setDeliveryASiteStatus(db: CentralDb, client: DeliveryAClient, scope: LocationScope, status: SiteStatus, now: Date): Promise<SiteStatus> {
  const c = await activeConnection(db, scope);
  let answered: SiteStatus;
  try {
    answered = await client.setSiteStatus(c.external_ref, status);
  } catch (e) {
    return providerFailure(e);
  }
  await logAction(db, scope, c.id, 'site_status', answered, now);
  return answered;
}
