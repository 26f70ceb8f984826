import { Elysia } from 'elysia';
import type { BackofficePrincipal } from '@pos/core/auth/principal';
import type { TenantContext } from '@pos/core/auth/tenant-context';
import type { MerchantIntegrationScope } from '@pos/core/integrations/merchant-integrations';
import { deleteRegisterCMapping, listRegisterCMappings, saveRegisterCMapping, setRegisterCMappingStatus } from '@pos/core/integrations/register-c-mappings';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { allLocations, bodyLocationPermission, grantedLocation, permission } from '../../plugins/guards.ts';
import { registerCConfigFromEnv } from '@pos/core/integrations/register-c-access';
import { saveRegisterCOrderSettings, saveRegisterCPaymentMethods, startRegisterCOAuth, testRegisterC } from '@pos/core/integrations/register-c-admin';
import { registerCBusinesses, registerCReads, runRegisterCRead } from '@pos/core/integrations/register-c-reads';
import { syncRegisterCMapping } from '@pos/core/integrations/register-c-sync';
import { adoptRegisterCMenuSuggestion, dismissRegisterCMenuSuggestion, registerCMenuSuggestion, useRegisterCMenu } from '@pos/core/integrations/register-c-menu-suggestion';
import { createRegisterCLocalOrder, createRegisterCToGoOrder, payRegisterCCheck } from '@pos/core/integrations/register-c-orders';
import * as S from './register-c.schemas.ts';
import { mappingBody, mappingDeleteResponse, mappingListResponse, mappingParams, mappingResponse } from './register-c.schemas.ts';

const tags = ['Integration administration'];
// The reads and the menu diff have no permission, but answer only at a location of the caller's grant
// (404 for none of the merchant's, then 403). Checked in the handler: the same check as a hook on these
// routes cost the API about 45 MB more at its peak through the hostile-input pass (bench hostile):
// `grantedLocation` is called by each of them.
const MIS = 'MANAGE_INTEGRATION_SETTINGS';

/**
 * register-c administration (spec 1 "register-c", merchant level, no location-owner): location
 * mappings (`GET /mappings`, `PUT` / `DELETE /mappings/{upvendoLocationId}`, `.../pause`, `.../resume`,
 * `.../sync`, `.../order-settings`), the connect flow's start (`POST /oauth`), `GET /test`,
 * `PUT /payment-methods`, the typed relay reads, the menu suggestion and orders/payments at
 * register-c. Writes are MIS; reads have no permission. A location of another merchant (or none) is
 * a 404; without a register-c connection (or its token) every call is a 404 on the integration.
 * Status, sync-time and disable live in integration-auto-sync.
 */
export function registerCRoutes(deps: ApiDeps) {
  const scope = (c: { tenant: TenantContext; auth: BackofficePrincipal }): MerchantIntegrationScope => ({ db: deps.db, tdb: c.tenant.db, merchant: c.tenant.merchant, userId: c.auth.userId, now: deps.clock.now() });
  const cfg = registerCConfigFromEnv(deps.config);
  const oauth = { oauthUrl: deps.config.REGISTER_C_OAUTH_URL ?? null, clientId: deps.config.REGISTER_C_CLIENT_ID ?? null, redirectUri: deps.config.REGISTER_C_OAUTH_REDIRECT_URI ?? null, stateSecret: deps.config.OAUTH_STATE_SECRET ?? null };
  const ok = <T>(data: T) => ({ status: 'success' as const, data });
  const MIS_ = permission(MIS);
  // A route about one of our locations checks the permission at that location (spec 1 5.8: scoped to the grant).
  const MIS_AT = permission(MIS, 'upvendoLocationId');
  const MIS_BODY = bodyLocationPermission(MIS);
  return new Elysia({ name: 'register-c-admin', prefix: '/back-office/register-c' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .use(registerCReadRoutes(deps, scope, cfg))
    .post('/oauth', (c) => ok(startRegisterCOAuth(scope(c), oauth)), {
      // Connecting another account replaces the merchant's connection and drops every location's mapping.
      transform: [MIS_, allLocations()],
      query: S.vendorOnlyQuery,
      response: { 200: S.oauthResponse },
      detail: { tags, summary: "Start the register-c connect flow: the provider's authorize URL with a signed state; permission MANAGE_INTEGRATION_SETTINGS at every location" },
    })
    .get('/test', async (c) => ({ data: await testRegisterC(scope(c), cfg) }), {
      query: S.vendorOnlyQuery,
      response: { 200: S.testResponse },
      detail: { tags, summary: "Call register-c with the stored token: ok, or register-c's refusal" },
    })
    .put('/payment-methods', async (c) => ok(await saveRegisterCPaymentMethods(scope(c), cfg, c.body.payment_methods)), {
      // One mapping for the merchant's connection: it changes how every location's payments land at register-c.
      transform: [MIS_, allLocations()],
      query: S.vendorOnlyQuery,
      body: S.paymentMethodsBody,
      response: { 200: S.paymentMethodsResponse },
      detail: { tags, summary: 'Map our payment methods to register-c payment methods (checked at register-c); permission MANAGE_INTEGRATION_SETTINGS at every location' },
    })
    .post('/mappings/:upvendoLocationId/sync', async (c) => ok(await syncRegisterCMapping(scope(c), cfg, c.params.upvendoLocationId)), {
      transform: MIS_AT,
      params: mappingParams,
      query: S.vendorOnlyQuery,
      response: { 200: S.syncResponse },
      detail: { tags, summary: "Sync a mapping now: register-c's items to our catalog rows linked by sku; permission MANAGE_INTEGRATION_SETTINGS" },
    })
    .put('/mappings/:upvendoLocationId/order-settings', async (c) => ok(await saveRegisterCOrderSettings(scope(c), cfg, c.params.upvendoLocationId, c.body)), {
      transform: MIS_AT,
      params: mappingParams,
      query: S.vendorOnlyQuery,
      body: S.orderSettingsBody,
      response: { 200: S.orderSettingsResponse },
      detail: { tags, summary: 'Where our online and kiosk orders land at register-c (account profile, table; checked at register-c); permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .get('/menu-suggestion/:upvendoLocationId/diff', async (c) => ({ data: await registerCMenuSuggestion(scope(c), cfg, await grantedLocation(c, c.params.upvendoLocationId)) }), {
      params: mappingParams,
      query: S.vendorOnlyQuery,
      response: { 200: S.suggestionResponse },
      detail: { tags, summary: "register-c's menu against our catalog at the location: to add, to update, missing" },
    })
    .post('/menu-suggestion/:upvendoLocationId/adopt', async (c) => ok(await adoptRegisterCMenuSuggestion(scope(c), cfg, c.params.upvendoLocationId)), {
      transform: MIS_AT,
      params: mappingParams,
      query: S.vendorOnlyQuery,
      response: { 200: S.adoptResponse },
      detail: { tags, summary: 'Apply the menu suggestion; permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .post('/menu-suggestion/:upvendoLocationId/dismiss', async (c) => ok(await dismissRegisterCMenuSuggestion(scope(c), cfg, c.params.upvendoLocationId)), {
      transform: MIS_AT,
      params: mappingParams,
      query: S.vendorOnlyQuery,
      response: { 200: S.dismissResponse },
      detail: { tags, summary: 'Dismiss the current menu suggestion until it changes; permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .post('/menu-suggestion/:upvendoLocationId/use', async (c) => ok(await useRegisterCMenu(scope(c), cfg, c.params.upvendoLocationId)), {
      transform: MIS_AT,
      params: mappingParams,
      query: S.vendorOnlyQuery,
      response: { 200: S.useResponse },
      detail: { tags, summary: "Make register-c the location's menu source; permission MANAGE_INTEGRATION_SETTINGS" },
    })
    .post('/orders/local', async (c) => ok(await createRegisterCLocalOrder(scope(c), cfg, c.body)), {
      transform: MIS_BODY,
      query: S.vendorOnlyQuery,
      body: S.localOrderBody,
      response: { 200: S.checkResponse },
      detail: { tags, summary: 'Create a dine-in order at register-c (idempotent by reference); permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .post('/orders/to-go', async (c) => ok(await createRegisterCToGoOrder(scope(c), cfg, c.body)), {
      transform: MIS_BODY,
      query: S.vendorOnlyQuery,
      body: S.toGoOrderBody,
      response: { 200: S.checkResponse },
      detail: { tags, summary: 'Create a takeaway order at register-c (idempotent by reference); permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .post('/pay', async (c) => ok(await payRegisterCCheck(scope(c), cfg, c.body)), {
      transform: MIS_BODY,
      query: S.vendorOnlyQuery,
      body: S.payBody,
      response: { 200: S.checkResponse },
      detail: { tags, summary: 'Pay a register-c check with a mapped payment method (idempotent by reference); permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .get('/mappings', async (c) => ({ data: await listRegisterCMappings(scope(c)) }), { response: { 200: mappingListResponse }, detail: { tags, summary: 'register-c location mappings' } })
    .put('/mappings/:upvendoLocationId', async (c) => ({ status: 'success' as const, data: await saveRegisterCMapping(scope(c), c.params.upvendoLocationId, c.body.register_c_location_id) }), {
      transform: MIS_AT,
      params: mappingParams,
      body: mappingBody,
      response: { 200: mappingResponse },
      detail: { tags, summary: 'Create or update a register-c location mapping; permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .delete(
      '/mappings/:upvendoLocationId',
      async (c) => {
        await deleteRegisterCMapping(scope(c), c.params.upvendoLocationId);
        return { status: 'success' as const };
      },
      {
        transform: MIS_AT,
        params: mappingParams,
        response: { 200: mappingDeleteResponse },
        detail: { tags, summary: 'Remove a register-c location mapping; permission MANAGE_INTEGRATION_SETTINGS' },
      },
    )
    .post('/mappings/:upvendoLocationId/pause', async (c) => ({ status: 'success' as const, data: await setRegisterCMappingStatus(scope(c), c.params.upvendoLocationId, 'paused') }), {
      transform: MIS_AT,
      params: mappingParams,
      response: { 200: mappingResponse },
      detail: { tags, summary: 'Pause a register-c location mapping; permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .post('/mappings/:upvendoLocationId/resume', async (c) => ({ status: 'success' as const, data: await setRegisterCMappingStatus(scope(c), c.params.upvendoLocationId, 'active') }), {
      transform: MIS_AT,
      params: mappingParams,
      response: { 200: mappingResponse },
      detail: { tags, summary: 'Resume a paused register-c location mapping; permission MANAGE_INTEGRATION_SETTINGS' },
    });
}

type ScopeOf = (c: { tenant: TenantContext; auth: BackofficePrincipal }) => MerchantIntegrationScope;

/** The relay reads (GET, no permission): one typed read each, location ones through `location_id`. */
function registerCReadRoutes(deps: ApiDeps, scope: ScopeOf, cfg: ReturnType<typeof registerCConfigFromEnv>) {
  const R = registerCReads;
  const detail = (summary: string) => ({ tags, summary });
  return new Elysia({ name: 'register-c-reads' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get('/account-profiles', async (c) => ({ data: await runRegisterCRead(scope(c), cfg, R.accountProfiles, await grantedLocation(c, c.query.location_id), {}) }), { query: S.locationQuery, response: { 200: S.accountProfilesResponse }, detail: detail('register-c account profiles (order types) of a mapped location') })
    .get('/account-profiles/tax-preview', async (c) => ({ data: await runRegisterCRead(scope(c), cfg, R.taxPreview, await grantedLocation(c, c.query.location_id), { account_profile_code: c.query.account_profile_code, amount_cents: c.query.amount_cents }) }), { query: S.taxPreviewQuery, response: { 200: S.taxPreviewResponse }, detail: detail('register-c tax split of a gross amount under an account profile') })
    .get('/floorplans', async (c) => ({ data: await runRegisterCRead(scope(c), cfg, R.floorplans, await grantedLocation(c, c.query.location_id), {}) }), { query: S.locationQuery, response: { 200: S.floorplansResponse }, detail: detail('register-c floorplans') })
    .get('/floorplans/:floorplanId/tables', async (c) => ({ data: await runRegisterCRead(scope(c), cfg, R.tables, await grantedLocation(c, c.query.location_id), { floorplan_id: c.params.floorplanId }) }), { params: S.floorplanParams, query: S.locationQuery, response: { 200: S.tablesResponse }, detail: detail('register-c tables of a floorplan') })
    .get('/menus', async (c) => ({ data: await runRegisterCRead(scope(c), cfg, R.menus, await grantedLocation(c, c.query.location_id), {}) }), { query: S.locationQuery, response: { 200: S.menusResponse }, detail: detail('register-c menus') })
    .get('/menus/:menuId', async (c) => ({ data: await runRegisterCRead(scope(c), cfg, R.menu, await grantedLocation(c, c.query.location_id), { menu_id: c.params.menuId }) }), { params: S.menuParams, query: S.locationQuery, response: { 200: S.menuResponse }, detail: detail('a register-c menu with its sections and items') })
    .get('/menu-modifiers', async (c) => ({ data: await runRegisterCRead(scope(c), cfg, R.modifiers, await grantedLocation(c, c.query.location_id), {}) }), { query: S.locationQuery, response: { 200: S.modifiersResponse }, detail: detail('register-c modifiers') })
    .get('/menu-discounts', async (c) => ({ data: await runRegisterCRead(scope(c), cfg, R.discounts, await grantedLocation(c, c.query.location_id), {}) }), { query: S.locationQuery, response: { 200: S.discountsResponse }, detail: detail('register-c discounts') })
    .get('/item-availability', async (c) => ({ data: await runRegisterCRead(scope(c), cfg, R.availability, await grantedLocation(c, c.query.location_id), {}) }), { query: S.locationQuery, response: { 200: S.availabilityResponse }, detail: detail('register-c item availability') })
    .get('/checks', async (c) => ({ data: await runRegisterCRead(scope(c), cfg, R.checks, await grantedLocation(c, c.query.location_id), { status: c.query.status }) }), { query: S.checksQuery, response: { 200: S.checksResponse }, detail: detail('register-c checks (status open or closed)') })
    .get('/checks/table/:tableNumber', async (c) => ({ data: await runRegisterCRead(scope(c), cfg, R.tableChecks, await grantedLocation(c, c.query.location_id), { table_number: Number(c.params.tableNumber) }) }), { params: S.tableParams, query: S.locationQuery, response: { 200: S.checksResponse }, detail: detail('open register-c checks of a table') })
    .get('/items', async (c) => ({ data: await runRegisterCRead(scope(c), cfg, R.items, await grantedLocation(c, c.query.location_id), {}) }), { query: S.locationQuery, response: { 200: S.itemsResponse }, detail: detail('register-c items') })
    .get('/rich-items', async (c) => ({ data: await runRegisterCRead(scope(c), cfg, R.richItems, await grantedLocation(c, c.query.location_id), {}) }), { query: S.locationQuery, response: { 200: S.richItemsResponse }, detail: detail('register-c items with description, image and allergens') })
    .get('/allergens', async (c) => ({ data: await runRegisterCRead(scope(c), cfg, R.allergens, await grantedLocation(c, c.query.location_id), {}) }), { query: S.locationQuery, response: { 200: S.allergensResponse }, detail: detail('register-c allergens') })
    .get('/financial/businesses', async (c) => ({ data: await registerCBusinesses(scope(c), cfg) }), { query: S.vendorOnlyQuery, response: { 200: S.businessesResponse }, detail: detail('register-c businesses of the connected account with their locations') })
    .get('/financial/tax-rates', async (c) => ({ data: await runRegisterCRead(scope(c), cfg, R.taxRates, await grantedLocation(c, c.query.location_id), {}) }), { query: S.locationQuery, response: { 200: S.taxRatesResponse }, detail: detail('register-c tax rates') })
    .get('/financial/payment-methods', async (c) => ({ data: await runRegisterCRead(scope(c), cfg, R.paymentMethods, await grantedLocation(c, c.query.location_id), {}) }), { query: S.locationQuery, response: { 200: S.paymentMethodsListResponse }, detail: detail('register-c payment methods') })
    .get('/financial/accounting-groups', async (c) => ({ data: await runRegisterCRead(scope(c), cfg, R.accountingGroups, await grantedLocation(c, c.query.location_id), {}) }), { query: S.locationQuery, response: { 200: S.accountingGroupsResponse }, detail: detail('register-c accounting groups') })
    .get('/financial/daily', async (c) => ({ data: await runRegisterCRead(scope(c), cfg, R.daily, await grantedLocation(c, c.query.location_id), { date: c.query.date }) }), { query: S.dailyQuery, response: { 200: S.dailyResponse }, detail: detail('register-c daily totals of a business day') });
}
