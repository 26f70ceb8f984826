import { Elysia } from 'elysia';
import { parseTokenKey } from '@pos/core/integrations/token-crypto';
import {
  disableRegisterA,
  refreshRegisterALocations,
  registerALocation,
  registerAStatus,
  registerAStores,
  saveRegisterAToken,
  selectRegisterAStore,
  syncRegisterAAll,
  syncRegisterACatalog,
  testRegisterA,
  testRegisterAAll,
  verifyRegisterAOrders,
  type RegisterAAdminDeps,
} from '@pos/core/integrations/register-a-admin';
import type { ApiDeps } from '../../context.ts';
import type { TenantContext } from '@pos/core/auth/tenant-context';
import { secured } from '../../plugins/secured.ts';
import { locationGrant, locationOwner, permission } from '../../plugins/guards.ts';
import * as S from './register-a.schemas.ts';

const MIS = 'MANAGE_INTEGRATION_SETTINGS';
const tags = ['Integrations: register-a'];
const doc = (summary: string, description: string) => ({ detail: { tags, summary, description, security: [{ bearer: [] }] } });

/*
 * Gates run as `transform` hooks (before body validation): location-owner first (another merchant's
 * location is a 404 whatever the body), then MANAGE_INTEGRATION_SETTINGS where spec 1 lists it.
 */
// No permission, but only at a location of the caller's grant (spec 1 section 5 item 8).
const owned = [locationOwner(), locationGrant()];
const ownedMis = [locationOwner(), permission(MIS, 'locationId')];

/**
 * Spec 1 "Integration administration", register-a (`/back-office/register-a`): auth, type:backoffice,
 * admin-vendor-override; `{locationId}` routes also location-owner; enable, store selection, token
 * rotation and delete need MANAGE_INTEGRATION_SETTINGS. The token is stored encrypted
 * (`INTEGRATION_TOKEN_KEY`) and never answered.
 */
export function registerARoutes(deps: ApiDeps) {
  const key = parseTokenKey(deps.config.INTEGRATION_TOKEN_KEY);
  const config = deps.config.REGISTER_A_BASE_URL && key ? { baseUrl: deps.config.REGISTER_A_BASE_URL, tokenKey: key } : null;
  const adminOf = (ctx: { tenant: TenantContext }): RegisterAAdminDeps => ({ central: deps.db, tdb: ctx.tenant.db, merchantId: ctx.tenant.merchant.id, config, now: () => deps.clock.now() });

  return new Elysia({ name: 'register-a-admin', prefix: '/back-office/register-a' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get('/status', async (ctx) => ({ data: await registerAStatus(adminOf(ctx)) }), {
      query: S.VendorQuery,
      response: { 200: S.StatusResponse },
      ...doc('register-a status', '`configured`: the platform has a register-a base URL and token key; `locations`: every location\'s record (status, selected store, namespace).'),
    })
    .post('/locations/sync', async (ctx) => ({ data: await refreshRegisterALocations(adminOf(ctx)) }), {
      query: S.VendorQuery,
      response: { 200: S.LocationsResponse },
      ...doc('Refresh the register-a locations', 'Reads each record\'s store from register-a again (name, company); a record whose token or store is refused becomes `error` (register-a away or rate-limiting changes no status).'),
    })
    .post('/test', async (ctx) => ({ data: await testRegisterAAll(adminOf(ctx)) }), {
      query: S.VendorQuery,
      response: { 200: S.TestAllResponse },
      ...doc('Test every register-a location', 'The location test of each record: `{results:[{location_id, ok, message}]}`.'),
    })
    .post('/sync', async (ctx) => ({ data: await syncRegisterAAll(adminOf(ctx), await ctx.access()) }), {
      query: S.VendorQuery,
      response: { 200: S.SyncAllResponse },
      ...doc('Sync the catalog of every register-a location', 'The catalog sync of each active record at a location in the caller\'s grant; a location that fails is listed in `failed` with its message.'),
    })
    .get('/:locationId', async (ctx) => ({ data: await registerALocation(adminOf(ctx), ctx.params.locationId) }), {
      params: S.LocationParams,
      query: S.VendorQuery,
      response: { 200: S.LocationResponse },
      transform: owned,
      ...doc('A location\'s register-a record', '`status` `not_connected` when the location has none.'),
    })
    .get('/:locationId/stores', async (ctx) => ({ data: await registerAStores(adminOf(ctx), ctx.params.locationId) }), {
      params: S.LocationParams,
      query: S.VendorQuery,
      response: { 200: S.StoresResponse },
      transform: owned,
      ...doc('The stores the token sees', 'Every register-a store of the location\'s token (read 25 per page while the register reports a next page). 404 when the location has no record.'),
    })
    .post(
      '/:locationId/enable',
      async (ctx) => ({ data: await saveRegisterAToken(adminOf(ctx), ctx.params.locationId, ctx.body.token, 'enable') }),
      {
        params: S.LocationParams,
        query: S.VendorQuery,
        body: S.TokenBody,
        response: { 200: S.LocationResponse },
        transform: ownedMis,
        ...doc(
          'Enable register-a for a location',
          'Body `{token}`: the JWT pasted from the register\'s external application. Its claims (`data` with `applicationId`, `namespace` prod or staging, `resources`, `permissions`) are checked and `/v1/authentication` must accept it (else 422 with the register\'s message); then it is stored encrypted with its applicationId (the webhook key). Status `pending_store` until a store is selected. 409 `register_a_not_configured` when the platform has no register-a base URL or token key.',
        ),
      },
    )
    .post(
      '/:locationId/stores/select',
      async (ctx) => ({ data: await selectRegisterAStore(adminOf(ctx), ctx.params.locationId, ctx.body.store_id) }),
      {
        params: S.LocationParams,
        query: S.VendorQuery,
        body: S.SelectStoreBody,
        response: { 200: S.LocationResponse },
        transform: ownedMis,
        ...doc('Select the register-a store', 'Body `{store_id}`: a store the token covers (422 otherwise); the record becomes `active` and orders are dispatched to it. A store already bound to another location is 409 `integration_taken`.'),
      },
    )
    .put('/:locationId/token', async (ctx) => ({ data: await saveRegisterAToken(adminOf(ctx), ctx.params.locationId, ctx.body.token, 'rotate') }), {
      params: S.LocationParams,
      query: S.VendorQuery,
      body: S.TokenBody,
      response: { 200: S.LocationResponse },
      transform: ownedMis,
      ...doc('Rotate the register-a token', 'Body `{token}`: replaces the stored token (encrypted) and its applicationId; the new token must authenticate and still cover the selected store (422 otherwise, nothing changed). 404 when the location has no record.'),
    })
    .post('/:locationId/sync', async (ctx) => ({ data: await syncRegisterACatalog(adminOf(ctx), ctx.params.locationId) }), {
      params: S.LocationParams,
      query: S.VendorQuery,
      response: { 200: S.SyncResponse },
      transform: owned,
      ...doc(
        'Sync the location\'s catalog to register-a',
        'Maintains the register\'s rows from the location\'s items, matched by reference `pos:<item id>`: creates missing ones, writes name, description and reference, sets prices in the store\'s price list, deletes rows whose item is gone. Modifier groups, families and images cannot be written through the register-a API: they are reported in `unsupported`, not attempted. 409 `no_store` before a store is selected.',
      ),
    })
    .post('/:locationId/test', async (ctx) => ({ data: await testRegisterA(adminOf(ctx), ctx.params.locationId) }), {
      params: S.LocationParams,
      query: S.VendorQuery,
      response: { 200: S.TestResponse },
      transform: owned,
      ...doc('Test the location\'s register-a connection', 'The token authenticates and reads the selected store: `{ok, namespace, store, message}` (`message` is the register\'s refusal, verbatim).'),
    })
    .post('/:locationId/orders/verify', async (ctx) => ({ data: await verifyRegisterAOrders(adminOf(ctx), ctx.params.locationId) }), {
      params: S.LocationParams,
      query: S.VendorQuery,
      response: { 200: S.VerifyResponse },
      transform: owned,
      ...doc('Verify dispatched orders', 'The location\'s latest 50 transactions dispatched to register-a are looked up in the store\'s orders (every kitchen status, `done` included): `{checked, found, missing}` (transaction ids).'),
    })
    .delete(
      '/:locationId',
      async (ctx) => {
        await disableRegisterA(adminOf(ctx), ctx.params.locationId);
        return { status: 'success' as const };
      },
      {
        params: S.LocationParams,
        query: S.VendorQuery,
        response: { 200: S.DeletedResponse },
        transform: ownedMis,
        ...doc('Disconnect register-a from a location', 'Removes the record and its stored token; orders are no longer dispatched. 404 when the location has no record.'),
      },
    );
}
