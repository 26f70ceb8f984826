import { Elysia } from 'elysia';
import { errors } from '@pos/kernel';
import { DeliveryBClient } from '@pos/providers/delivery-b/delivery-b-client';
import type { LocationScope } from '@pos/core/integrations/delivery-a';
import {
  connectDeliveryBStore,
  deliveryBConfiguration,
  deliveryBLogs,
  deliveryBMenu,
  deliveryBStatus,
  deliveryBStore,
  deliveryBStoreList,
  deliveryBStoreStatus,
  disableDeliveryB,
  selectDeliveryBStore,
  setDeliveryBFulfillment,
  setDeliveryBPrepTime,
  setDeliveryBStoreStatus,
  syncDeliveryBMenu,
  updateDeliveryBSettings,
} from '@pos/core/integrations/delivery-b';
import { parseTokenKey } from '@pos/core/integrations/token-crypto';
import { startOAuthFlow } from '@pos/core/integrations/oauth-start';
import type { ApiDeps } from '../../context.ts';
import { oauthClientConfig } from '../webhooks/oauth-callbacks.ts';
import { secured } from '../../plugins/secured.ts';
import { locationGrant, locationOwner, permission } from '../../plugins/guards.ts';
import type { TenantContext } from '@pos/core/auth/tenant-context';
import * as S from './delivery-b.schemas.ts';

const tags = ['Integration administration'];
const MIS = 'MANAGE_INTEGRATION_SETTINGS';

/**
 * delivery-b administration (spec 1): `/back-office/delivery-b/{locationId}` with admin-vendor-override
 * and location-owner; the routes spec 1 marks MIS need MANAGE_INTEGRATION_SETTINGS (sync-menu does not).
 * There is no PUT on the root: settings go to `/settings`.
 */
export function deliveryBRoutes(deps: ApiDeps) {
  let client: DeliveryBClient | undefined;
  const deliveryB = (): DeliveryBClient => {
    if (!deps.config.DELIVERY_B_API_URL || !deps.config.DELIVERY_B_API_TOKEN) throw errors.unavailable('delivery-b is not configured.');
    return (client ??= new DeliveryBClient({ baseUrl: deps.config.DELIVERY_B_API_URL, apiToken: deps.config.DELIVERY_B_API_TOKEN }));
  };
  const scope = (tenant: TenantContext, locationId: string): LocationScope => ({ merchant: tenant.merchant, locationId });
  const tokenKey = parseTokenKey(deps.config.INTEGRATION_TOKEN_KEY);
  // delivery-b's token endpoint: the account's access token is refreshed with it (absent: never refreshed).
  const tokenEndpoint = oauthClientConfig(deps.config, 'delivery-b');
  const oauth = { oauthUrl: deps.config.DELIVERY_B_OAUTH_URL ?? null, clientId: deps.config.DELIVERY_B_CLIENT_ID ?? null, redirectUri: deps.config.DELIVERY_B_OAUTH_REDIRECT_URI ?? null, stateSecret: deps.config.OAUTH_STATE_SECRET ?? null };
  const mis = [locationOwner(), permission(MIS, 'locationId')];
  // No permission, but only at a location of the caller's grant (spec 1 section 5 item 8).
  const granted = [locationOwner(), locationGrant()];
  const now = () => deps.clock.now();
  const ok = <T>(data: T) => ({ status: 'success' as const, data });

  return new Elysia({ name: 'delivery-b-admin', prefix: '/back-office/delivery-b' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get('/:locationId', async ({ tenant, params }) => ({ data: await deliveryBStatus(deps.db, scope(tenant, params.locationId)) }), {
      transform: granted,
      params: S.locationParams,
      query: S.vendorQuery,
      response: { 200: S.statusResponse },
      detail: { tags, summary: 'delivery-b status of a location' },
    })
    .post('/:locationId', async ({ tenant, params, body }) => ok(await connectDeliveryBStore(deps.db, deliveryB(), tokenKey, scope(tenant, params.locationId), body, now(), tokenEndpoint)), {
      transform: mis,
      params: S.locationParams,
      query: S.vendorQuery,
      body: S.enableBody,
      response: { 200: S.statusWriteResponse },
      detail: { tags, summary: 'Enable delivery-b for a location with a marketplace store; permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .delete('/:locationId', async ({ tenant, params }) => ok(await disableDeliveryB(deps.db, deliveryB(), scope(tenant, params.locationId), now())), {
      transform: mis,
      params: S.locationParams,
      query: S.vendorQuery,
      response: { 200: S.statusWriteResponse },
      detail: { tags, summary: 'Disable delivery-b for a location; permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .post('/:locationId/select-store', async ({ tenant, params, body }) => ok(await selectDeliveryBStore(deps.db, deliveryB(), tokenKey, scope(tenant, params.locationId), body.store_id, now(), tokenEndpoint)), {
      transform: mis,
      params: S.locationParams,
      query: S.vendorQuery,
      body: S.selectStoreBody,
      response: { 200: S.statusWriteResponse },
      detail: { tags, summary: 'Switch the delivery-b store of an enabled location; permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .post('/:locationId/oauth', ({ tenant, params }) => ok(startOAuthFlow('delivery-b', { merchantId: tenant.merchant.id, locationId: params.locationId, now: now() }, oauth)), {
      transform: mis,
      params: S.locationParams,
      query: S.vendorQuery,
      response: { 200: S.oauthResponse },
      detail: {
        tags,
        summary: "Start connecting the merchant's delivery-b account (OAuth); permission MANAGE_INTEGRATION_SETTINGS",
        description: "Answers delivery-b's authorize URL with a signed state (10 minutes, used once) for `/delivery-b/callback`, which stores the account (not a store). The store list and enable/select-store then offer the account's stores only. 503 while DELIVERY_B_OAUTH_URL, DELIVERY_B_CLIENT_ID, DELIVERY_B_OAUTH_REDIRECT_URI or OAUTH_STATE_SECRET is unset.",
      },
    })
    .get('/:locationId/store-list', async ({ tenant, params }) => ({ data: await deliveryBStoreList(deps.db, deliveryB(), tokenKey, scope(tenant, params.locationId), tokenEndpoint) }), {
      transform: granted,
      params: S.locationParams,
      query: S.vendorQuery,
      response: { 200: S.storeListResponse },
      detail: { tags, summary: 'delivery-b stores that can be selected' },
    })
    .get('/:locationId/configuration', async ({ tenant, params }) => ({ data: await deliveryBConfiguration(deps.db, scope(tenant, params.locationId)) }), {
      transform: granted,
      params: S.locationParams,
      query: S.vendorQuery,
      response: { 200: S.configurationResponse },
      detail: { tags, summary: 'delivery-b configuration of a location' },
    })
    .get('/:locationId/store', async ({ tenant, params }) => ({ data: await deliveryBStore(deps.db, deliveryB(), scope(tenant, params.locationId)) }), {
      transform: granted,
      params: S.locationParams,
      query: S.vendorQuery,
      response: { 200: S.storeResponse },
      detail: { tags, summary: 'The connected delivery-b store as delivery-b holds it' },
    })
    .get('/:locationId/store/status', async ({ tenant, params }) => ({ data: { status: await deliveryBStoreStatus(deps.db, deliveryB(), scope(tenant, params.locationId)) } }), {
      transform: granted,
      params: S.locationParams,
      query: S.vendorQuery,
      response: { 200: S.storeStatusResponse },
      detail: { tags, summary: 'delivery-b store status (online or offline)' },
    })
    .get('/:locationId/menu', async ({ tenant, params }) => ({ data: await deliveryBMenu(deps.db, deliveryB(), scope(tenant, params.locationId)) }), {
      transform: granted,
      params: S.locationParams,
      query: S.vendorQuery,
      response: { 200: S.menuResponse },
      detail: { tags, summary: 'The menu delivery-b holds for the store' },
    })
    .put('/:locationId/settings', async ({ tenant, params, body }) => ok(await updateDeliveryBSettings(deps.db, scope(tenant, params.locationId), body, now())), {
      transform: mis,
      params: S.locationParams,
      query: S.vendorQuery,
      body: S.settingsBody,
      response: { 200: S.statusWriteResponse },
      detail: { tags, summary: 'Update the delivery-b settings of a location; permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .put(
      '/:locationId/store/status',
      async ({ tenant, params, body }) => ok({ status: await setDeliveryBStoreStatus(deps.db, deliveryB(), scope(tenant, params.locationId), body.status, now()) }),
      {
        transform: mis,
        params: S.locationParams,
        query: S.vendorQuery,
        body: S.storeStatusBody,
        response: { 200: S.storeStatusWriteResponse },
        detail: { tags, summary: 'Set the delivery-b store online or offline; permission MANAGE_INTEGRATION_SETTINGS' },
      },
    )
    .put('/:locationId/store/prep-time', async ({ tenant, params, body }) => ok(await setDeliveryBPrepTime(deps.db, deliveryB(), scope(tenant, params.locationId), body.prep_time_minutes, now())), {
      transform: mis,
      params: S.locationParams,
      query: S.vendorQuery,
      body: S.prepTimeBody,
      response: { 200: S.statusWriteResponse },
      detail: { tags, summary: 'Set the delivery-b store prep time (0-240 minutes); permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .put('/:locationId/store/fulfillment', async ({ tenant, params, body }) => ok(await setDeliveryBFulfillment(deps.db, deliveryB(), scope(tenant, params.locationId), body, now())), {
      transform: mis,
      params: S.locationParams,
      query: S.vendorQuery,
      body: S.fulfillmentBody,
      response: { 200: S.statusWriteResponse },
      detail: { tags, summary: 'Set the delivery-b fulfillment modes (delivery, pickup); permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .post(
      '/:locationId/sync-menu',
      async ({ tenant, params }) => ({ status: 'success' as const, ...(await syncDeliveryBMenu(deps.db, tenant.db, deliveryB(), scope(tenant, params.locationId), now())) }),
      {
        transform: granted,
        params: S.locationParams,
        query: S.vendorQuery,
        response: { 200: S.syncMenuResponse },
        detail: { tags, summary: 'Push the location menu with availability to delivery-b' },
      },
    )
    .get(
      '/:locationId/logs',
      async ({ tenant, params, query }) => ({ data: await deliveryBLogs(deps.db, scope(tenant, params.locationId), query.limit === undefined ? undefined : Number(query.limit)) }),
      {
        transform: granted,
        params: S.locationParams,
        query: S.logsQuery,
        response: { 200: S.logsResponse },
        detail: { tags, summary: 'delivery-b log of a location (query limit, default 50, clamped to 1-200)' },
      },
    );
}
