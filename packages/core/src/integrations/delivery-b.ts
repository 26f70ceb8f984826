import type { CentralDb, TenantDb } from '@pos/db';
import { errors } from '@pos/kernel';
import { ProviderError } from '@pos/providers/shared/provider-error';
import type { DeliveryBClient, DeliveryBFulfillment, DeliveryBMenuItem, DeliveryBStore, DeliveryBStoreStatus } from '@pos/providers/delivery-b/delivery-b-client';
import { clampLogLimit, type DeliveryALogEntry, type LocationScope } from './delivery-a.ts';
import { deliveryMenuItems } from './delivery-menu.ts';
import type { LocationConnectionRow } from './connections.ts';
import { marketplaceConnections } from './marketplace-connections.ts';
import { claimConnection, finishConnectClaim, releaseConnectClaim, type ConnectClaim } from './connect-claims.ts';
import { merchantDeliveryBStores } from './delivery-b-account.ts';
import type { TokenKey } from './token-crypto.ts';
import type { OAuthClientConfig } from '@pos/providers/oauth/oauth-client';

/**
 * delivery-b administration per location (spec 1 "delivery-b"): like delivery-a, the location's
 * connection lives in central `integration_connections` (provider `delivery-b`, `external_ref` the
 * marketplace store id; the merchant's delivery-b account, which owns the stores, is `delivery-b-account`),
 * calls go through the store API client, and every action is logged in
 * `integration_events` (kind `admin`). Settings are changed at `/settings` (there is no PUT on the root).
 */
const PROVIDER = 'delivery-b';
const LABEL = 'delivery-b store';

export interface DeliveryBSettings {
  readonly auto_accept_orders: boolean;
  readonly prep_time_minutes: number;
  readonly fulfillment: DeliveryBFulfillment;
}
const DEFAULT_SETTINGS: DeliveryBSettings = { auto_accept_orders: false, prep_time_minutes: 15, fulfillment: { delivery: true, pickup: false } };

export interface DeliveryBStatus {
  readonly enabled: boolean;
  readonly store_id: string | null;
  readonly status: string;
  readonly connected_at: string | null;
  readonly menu_synced_at: string | null;
  readonly settings: DeliveryBSettings;
}

type ConnectionRow = LocationConnectionRow;

const { connectionOf, activeConnection, logAction, disable } = marketplaceConnections(PROVIDER, LABEL);

function settingsOf(c: ConnectionRow | null): DeliveryBSettings {
  const s = (c?.settings ?? {}) as Partial<DeliveryBSettings>;
  const f = s.fulfillment;
  return {
    auto_accept_orders: typeof s.auto_accept_orders === 'boolean' ? s.auto_accept_orders : DEFAULT_SETTINGS.auto_accept_orders,
    prep_time_minutes: typeof s.prep_time_minutes === 'number' ? s.prep_time_minutes : DEFAULT_SETTINGS.prep_time_minutes,
    fulfillment: f && typeof f.delivery === 'boolean' && typeof f.pickup === 'boolean' ? { delivery: f.delivery, pickup: f.pickup } : DEFAULT_SETTINGS.fulfillment,
  };
}

function statusOf(c: ConnectionRow | null): DeliveryBStatus {
  return {
    enabled: c?.status === 'active',
    store_id: c?.external_ref ?? null,
    status: c?.status ?? 'disconnected',
    connected_at: c?.connected_at ? new Date(c.connected_at).toISOString() : null,
    menu_synced_at: c?.menu_synced_at ? new Date(c.menu_synced_at).toISOString() : null,
    settings: settingsOf(c),
  };
}

/** An unknown store is the caller's input (422 on `field`), a refusal is 409, the rest is 503. */
function providerFailure(e: unknown, field?: string): never {
  if (e instanceof ProviderError) {
    if (e.kind === 'http' && e.status === 404 && field) throw errors.field(field, 'The store could not be found at delivery-b.');
    if (e.kind === 'http' && (e.status === 409 || e.status === 404)) throw errors.conflict(`delivery-b refused the request: ${e.message.replace(/^delivery-b: /, '')}`);
    throw errors.unavailable('delivery-b could not be reached.');
  }
  throw e;
}

async function settingsWrite(db: CentralDb, c: ConnectionRow, settings: DeliveryBSettings, now: Date): Promise<void> {
  await db.updateTable('integration_connections').set({ settings: JSON.stringify(settings), updated_at: now }).where('id', '=', c.id).execute();
}

export async function deliveryBStatus(db: CentralDb, scope: LocationScope): Promise<DeliveryBStatus> {
  return statusOf(await connectionOf(db, scope));
}

/**
 * Connects the location to the marketplace store `storeId` (enable and select-store): the store must
 * exist at delivery-b and belong to no other merchant or location here (409); delivery-b is told our
 * location id. A previous store of the location is let go at delivery-b and here.
 */
export async function connectDeliveryBStore(db: CentralDb, client: DeliveryBClient, key: TokenKey | null, scope: LocationScope, input: { store_id: string; auto_accept_orders?: boolean }, now: Date, oauth: OAuthClientConfig | null = null): Promise<DeliveryBStatus> {
  // Only a store of the merchant's own delivery-b account (the platform token reaches every merchant's):
  // any other id, or any id before the account is connected, is the unknown store's 422.
  if (!(await merchantDeliveryBStores(db, client, key, scope.merchant.id, oauth)).has(input.store_id)) throw errors.field('store_id', 'The store could not be found at delivery-b.');
  const claim: ConnectClaim = { provider: PROVIDER, externalRef: input.store_id, merchantId: scope.merchant.id, locationId: scope.locationId };
  await claimConnection(db, claim, LABEL, now);
  const existing = await connectionOf(db, scope);
  let store: DeliveryBStore;
  try {
    await client.getStore(input.store_id);
    store = await client.enableIntegration(input.store_id, scope.locationId);
    if (existing && existing.status === 'active' && existing.external_ref !== input.store_id) await client.disableIntegration(existing.external_ref).catch(() => undefined);
  } catch (e) {
    await releaseConnectClaim(db, claim);
    providerFailure(e, 'store_id');
  }
  // The store's own prep time and fulfillment are what it runs with now.
  const settings: DeliveryBSettings = {
    ...settingsOf(existing),
    ...(input.auto_accept_orders !== undefined ? { auto_accept_orders: input.auto_accept_orders } : {}),
    prep_time_minutes: store.prep_time_minutes,
    fulfillment: store.fulfillment,
  };
  const id = await finishConnectClaim(db, claim, LABEL, { settings: JSON.stringify(settings), now });
  await logAction(db, scope, id, existing?.status === 'active' ? 'store_selected' : 'enabled', input.store_id, now);
  return statusOf(await connectionOf(db, scope));
}

/** select-store: only once enabled; otherwise the integration is a 404. */
export async function selectDeliveryBStore(db: CentralDb, client: DeliveryBClient, key: TokenKey | null, scope: LocationScope, storeId: string, now: Date, oauth: OAuthClientConfig | null = null): Promise<DeliveryBStatus> {
  await activeConnection(db, scope);
  return connectDeliveryBStore(db, client, key, scope, { store_id: storeId }, now, oauth);
}

/** Disables: delivery-b is told first (an unknown store there is fine), then the connection is marked disabled. */
export async function disableDeliveryB(db: CentralDb, client: DeliveryBClient, scope: LocationScope, now: Date): Promise<DeliveryBStatus> {
  return disable(db, scope, now, { tellProvider: (storeId) => client.disableIntegration(storeId), failure: providerFailure, statusOf });
}

/** PUT /settings: local settings only (no provider call). */
export async function updateDeliveryBSettings(db: CentralDb, scope: LocationScope, input: { auto_accept_orders?: boolean }, now: Date): Promise<DeliveryBStatus> {
  const c = await activeConnection(db, scope);
  const settings = { ...settingsOf(c), ...(input.auto_accept_orders !== undefined ? { auto_accept_orders: input.auto_accept_orders } : {}) };
  await settingsWrite(db, c, settings, now);
  await logAction(db, scope, c.id, 'settings_updated', null, now);
  return statusOf(await connectionOf(db, scope));
}

export async function deliveryBConfiguration(db: CentralDb, scope: LocationScope): Promise<DeliveryBSettings & { store_id: string }> {
  const c = await activeConnection(db, scope);
  return { store_id: c.external_ref, ...settingsOf(c) };
}

/**
 * The stores of the merchant's connected delivery-b account(s) (`merchantDeliveryBStores`, read with the
 * account's token: the platform token sees every merchant's stores), each marked when it is connected to
 * this location; none before an account is connected. A store held by another merchant's connection
 * (active or disabled: it is theirs to connect again, 409 for anyone else) is still left out.
 */
export async function deliveryBStoreList(db: CentralDb, client: DeliveryBClient, key: TokenKey | null, scope: LocationScope, oauth: OAuthClientConfig | null = null): Promise<{ id: string; name: string; selected: boolean }[]> {
  const c = await connectionOf(db, scope);
  const stores = [...(await merchantDeliveryBStores(db, client, key, scope.merchant.id, oauth))].map(([id, name]) => ({ id, name }));
  const ids = [...new Set(stores.map((s) => s.id))];
  const held =
    ids.length === 0
      ? []
      : await db.selectFrom('integration_connections').select('external_ref').where('provider', '=', PROVIDER).where('external_ref', 'in', ids).where('merchant_id', '<>', scope.merchant.id).execute();
  const elsewhere = new Set(held.map((r) => r.external_ref));
  return stores.filter((s) => !elsewhere.has(s.id)).map((s) => ({ id: s.id, name: s.name, selected: c?.status === 'active' && c.external_ref === s.id }));
}

export async function deliveryBStore(db: CentralDb, client: DeliveryBClient, scope: LocationScope): Promise<DeliveryBStore> {
  const c = await activeConnection(db, scope);
  try {
    return await client.getStore(c.external_ref);
  } catch (e) {
    return providerFailure(e);
  }
}

export async function deliveryBStoreStatus(db: CentralDb, client: DeliveryBClient, scope: LocationScope): Promise<DeliveryBStoreStatus> {
  return (await deliveryBStore(db, client, scope)).status;
}

export async function setDeliveryBStoreStatus(db: CentralDb, client: DeliveryBClient, scope: LocationScope, status: DeliveryBStoreStatus, now: Date): Promise<DeliveryBStoreStatus> {
  const c = await activeConnection(db, scope);
  let answered: DeliveryBStoreStatus;
  try {
    answered = await client.setStatus(c.external_ref, status);
  } catch (e) {
    return providerFailure(e);
  }
  await logAction(db, scope, c.id, 'store_status', answered, now);
  return answered;
}

export async function setDeliveryBPrepTime(db: CentralDb, client: DeliveryBClient, scope: LocationScope, minutes: number, now: Date): Promise<DeliveryBStatus> {
  const c = await activeConnection(db, scope);
  let answered = minutes;
  try {
    answered = await client.setPrepTime(c.external_ref, minutes);
  } catch (e) {
    providerFailure(e);
  }
  await settingsWrite(db, c, { ...settingsOf(c), prep_time_minutes: answered }, now);
  await logAction(db, scope, c.id, 'prep_time', String(answered), now);
  return statusOf(await connectionOf(db, scope));
}

export async function setDeliveryBFulfillment(db: CentralDb, client: DeliveryBClient, scope: LocationScope, fulfillment: DeliveryBFulfillment, now: Date): Promise<DeliveryBStatus> {
  const c = await activeConnection(db, scope);
  let answered = fulfillment;
  try {
    answered = await client.setFulfillment(c.external_ref, fulfillment);
  } catch (e) {
    providerFailure(e);
  }
  await settingsWrite(db, c, { ...settingsOf(c), fulfillment: answered }, now);
  await logAction(db, scope, c.id, 'fulfillment', `${answered.delivery ? 'delivery' : ''}${answered.delivery && answered.pickup ? ',' : ''}${answered.pickup ? 'pickup' : ''}`, now);
  return statusOf(await connectionOf(db, scope));
}


/** Pushes the location's delivery menu, availability included (menu sync is push-only). */
export async function syncDeliveryBMenu(db: CentralDb, tdb: TenantDb, client: DeliveryBClient, scope: LocationScope, now: Date): Promise<{ items: number }> {
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

/** The menu as delivery-b holds it (a store without a pushed menu is a 409). */
export async function deliveryBMenu(db: CentralDb, client: DeliveryBClient, scope: LocationScope): Promise<DeliveryBMenuItem[]> {
  const c = await activeConnection(db, scope);
  try {
    return await client.menu(c.external_ref);
  } catch (e) {
    return providerFailure(e);
  }
}

export async function deliveryBLogs(db: CentralDb, scope: LocationScope, limit: number | undefined): Promise<DeliveryALogEntry[]> {
  const c = await connectionOf(db, scope);
  if (!c) throw errors.notFound('delivery-b integration');
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
