import { Elysia } from 'elysia';
import { errors } from '@pos/kernel';
import { DeliveryAClient } from '@pos/providers/delivery-a/delivery-a-client';
import {
  deliveryALogs,
  deliveryASiteStatus,
  deliveryAStatus,
  disableDeliveryA,
  enableDeliveryA,
  setDeliveryASiteStatus,
  syncDeliveryAAvailability,
  syncDeliveryAMenu,
  updateDeliveryA,
  type LocationScope,
} from '@pos/core/integrations/delivery-a';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { locationGrant, locationOwner, permission } from '../../plugins/guards.ts';
import type { TenantContext } from '@pos/core/auth/tenant-context';
import * as S from './delivery-a.schemas.ts';

const tags = ['Integration administration'];
const MIS = 'MANAGE_INTEGRATION_SETTINGS';

/**
 * delivery-a administration (spec 1): `/back-office/delivery-a/{locationId}` with admin-vendor-override
 * and location-owner; mutating routes need MANAGE_INTEGRATION_SETTINGS.
 */
export function deliveryARoutes(deps: ApiDeps) {
  let client: DeliveryAClient | undefined;
  const deliveryA = (): DeliveryAClient => {
    if (!deps.config.DELIVERY_A_API_URL || !deps.config.DELIVERY_A_API_TOKEN) throw errors.unavailable('delivery-a is not configured.');
    return (client ??= new DeliveryAClient({ baseUrl: deps.config.DELIVERY_A_API_URL, apiToken: deps.config.DELIVERY_A_API_TOKEN }));
  };
  const scope = (tenant: TenantContext, locationId: string): LocationScope => ({ merchant: tenant.merchant, locationId });
  const mis = [locationOwner(), permission(MIS, 'locationId')];
  // No permission, but only at a location of the caller's grant (spec 1 section 5 item 8).
  const granted = [locationOwner(), locationGrant()];
  const now = () => deps.clock.now();

  return new Elysia({ name: 'delivery-a-admin', prefix: '/back-office/delivery-a' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get('/:locationId', async ({ tenant, params }) => ({ data: await deliveryAStatus(deps.db, scope(tenant, params.locationId)) }), {
      transform: granted,
      params: S.locationParams,
      query: S.vendorQuery,
      response: { 200: S.statusResponse },
      detail: { tags, summary: 'delivery-a status of a location' },
    })
    .post('/:locationId', async ({ tenant, params, body }) => ({ status: 'success' as const, data: await enableDeliveryA(deps.db, deliveryA(), scope(tenant, params.locationId), body, now()) }), {
      transform: mis,
      params: S.locationParams,
      query: S.vendorQuery,
      body: S.enableBody,
      response: { 200: S.statusWriteResponse },
      detail: { tags, summary: 'Enable delivery-a for a location with a marketplace store and its link code; permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .put('/:locationId', async ({ tenant, params, body }) => ({ status: 'success' as const, data: await updateDeliveryA(deps.db, scope(tenant, params.locationId), body, now()) }), {
      transform: mis,
      params: S.locationParams,
      query: S.vendorQuery,
      body: S.updateBody,
      response: { 200: S.statusWriteResponse },
      detail: { tags, summary: 'Update the delivery-a settings of a location; permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .delete('/:locationId', async ({ tenant, params }) => ({ status: 'success' as const, data: await disableDeliveryA(deps.db, deliveryA(), scope(tenant, params.locationId), now()) }), {
      transform: mis,
      params: S.locationParams,
      query: S.vendorQuery,
      response: { 200: S.statusWriteResponse },
      detail: { tags, summary: 'Disable delivery-a for a location; permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .post(
      '/:locationId/sync-menu',
      async ({ tenant, params }) => ({ status: 'success' as const, ...(await syncDeliveryAMenu(deps.db, tenant.db, deliveryA(), scope(tenant, params.locationId), now())) }),
      {
        transform: mis,
        params: S.locationParams,
        query: S.vendorQuery,
        response: { 200: S.syncMenuResponse },
        detail: { tags, summary: 'Push the location menu to delivery-a; permission MANAGE_INTEGRATION_SETTINGS' },
      },
    )
    .post(
      '/:locationId/sync-availability',
      async ({ tenant, params }) => ({ status: 'success' as const, ...(await syncDeliveryAAvailability(deps.db, tenant.db, deliveryA(), scope(tenant, params.locationId), now())) }),
      {
        transform: mis,
        params: S.locationParams,
        query: S.vendorQuery,
        response: { 200: S.syncAvailabilityResponse },
        detail: { tags, summary: 'Push item availability to delivery-a; permission MANAGE_INTEGRATION_SETTINGS' },
      },
    )
    .get(
      '/:locationId/logs',
      async ({ tenant, params, query }) => ({ data: await deliveryALogs(deps.db, scope(tenant, params.locationId), query.limit === undefined ? undefined : Number(query.limit)) }),
      {
        transform: granted,
        params: S.locationParams,
        query: S.logsQuery,
        response: { 200: S.logsResponse },
        detail: { tags, summary: 'delivery-a log of a location (query limit, default 50, clamped to 1-200)' },
      },
    )
    .get('/:locationId/site-status', async ({ tenant, params }) => ({ data: { status: await deliveryASiteStatus(deps.db, deliveryA(), scope(tenant, params.locationId)) } }), {
      transform: granted,
      params: S.locationParams,
      query: S.vendorQuery,
      response: { 200: S.siteStatusResponse },
      detail: { tags, summary: 'delivery-a site status of a location' },
    })
    .put(
      '/:locationId/site-status',
      async ({ tenant, params, body }) => ({ status: 'success' as const, data: { status: await setDeliveryASiteStatus(deps.db, deliveryA(), scope(tenant, params.locationId), body.status, now()) } }),
      {
        transform: mis,
        params: S.locationParams,
        query: S.vendorQuery,
        body: S.siteStatusBody,
        response: { 200: S.siteStatusWriteResponse },
        detail: { tags, summary: 'Set the delivery-a site status (OPEN, CLOSED, READY_TO_OPEN); permission MANAGE_INTEGRATION_SETTINGS' },
      },
    );
}
