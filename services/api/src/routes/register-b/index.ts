import { Elysia } from 'elysia';
import type { BackofficePrincipal } from '@pos/core/auth/principal';
import type { TenantContext } from '@pos/core/auth/tenant-context';
import { disableMerchantIntegration, type MerchantIntegrationScope } from '@pos/core/integrations/merchant-integrations';
import { REGISTER_B, registerBStatus, saveRegisterB } from '@pos/core/integrations/register-b-admin';
import {
  diagnoseRegisterB,
  probeRegisterBCapabilities,
  registerBBranches,
  registerBHealth,
  registerBMappings,
  saveRegisterBMappings,
  syncRegisterBLocations,
  testRegisterB,
  toggleRegisterBLiveInventory,
} from '@pos/core/integrations/register-b-branches';
import { refreshRegisterBInventory, startRegisterBSync } from '@pos/core/integrations/register-b-sync';
import { createRegisterBRelation, linkRegisterBRelation, listRegisterBRelations, quoteRegisterB, registerBRelationPrices, syncRegisterBRelations } from '@pos/core/integrations/register-b-relations';
import { RegisterBClient } from '@pos/providers/register-b/register-b-client';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { allLocations, permission } from '../../plugins/guards.ts';
import * as S from './register-b.schemas.ts';
import { registerBDisableResponse, registerBSaveBody, registerBSaveResponse, registerBStatusResponse } from './register-b.schemas.ts';

const tags = ['Integration administration'];
const MIS = 'MANAGE_INTEGRATION_SETTINGS';

/**
 * register-b administration (spec 1 "register-b", merchant level, admin-vendor-override). The
 * connection is `integration_connections` with `external_ref` the register-b account. Routes spec 1
 * marks MIS need MANAGE_INTEGRATION_SETTINGS; reads and the inventory/relations/pricing actions need
 * none. Without a register-b connection every route but status and healthcheck answers 404
 * `integration`; the provider is reached through its partner API client (REGISTER_B_API_URL and
 * REGISTER_B_API_TOKEN; unset: 503 `register-b is not configured.` once the connection is found).
 */
export function registerBRoutes(deps: ApiDeps) {
  const scope = (c: { tenant: TenantContext; auth: BackofficePrincipal }): MerchantIntegrationScope => ({ db: deps.db, tdb: c.tenant.db, merchant: c.tenant.merchant, userId: c.auth.userId, now: deps.clock.now() });
  let built: RegisterBClient | undefined;
  const client = (): RegisterBClient | null => {
    if (!deps.config.REGISTER_B_API_URL || !deps.config.REGISTER_B_API_TOKEN) return null;
    return (built ??= new RegisterBClient({ baseUrl: deps.config.REGISTER_B_API_URL, apiToken: deps.config.REGISTER_B_API_TOKEN }));
  };
  const mis = permission(MIS);
  const ok = <T>(data: T) => ({ status: 'success' as const, data });

  return new Elysia({ name: 'register-b-admin', prefix: '/back-office' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .post('/register-b', async (c) => ok(await saveRegisterB(scope(c), client(), c.body)), {
      // The merchant's one connection: another account drops every location's branch mapping and links.
      transform: [mis, allLocations()],
      body: registerBSaveBody,
      response: { 200: registerBSaveResponse },
      detail: { tags, summary: "Initiate register-b (account_id with the account's link_code, checked at register-b) or save its settings and auto-sync time; permission MANAGE_INTEGRATION_SETTINGS at every location" },
    })
    .get('/register-b/status', async (c) => ({ data: await registerBStatus(scope(c)) }), {
      response: { 200: registerBStatusResponse },
      detail: { tags, summary: 'register-b connection status and auto-sync schedule (sync_timezone never null)' },
    })
    .post(
      '/register-b/disable',
      async (c) => {
        await disableMerchantIntegration(scope(c), REGISTER_B);
        return { status: 'success' as const };
      },
      {
        // The merchant's one connection serves every location: turning it off is not a one-location decision.
        transform: [mis, allLocations()],
        response: { 200: registerBDisableResponse },
        detail: { tags, summary: 'Disable the register-b integration; permission MANAGE_INTEGRATION_SETTINGS' },
      },
    )
    .get('/register-b/test', async (c) => ({ data: await testRegisterB(scope(c), client()) }), {
      response: { 200: S.testResponse },
      detail: { tags, summary: 'Test the register-b account: ok, or the refusal register-b gave (or `unreachable`)' },
    })
    .get('/register-b/healthcheck', async () => ({ data: await registerBHealth(client()) }), {
      response: { 200: S.healthResponse },
      detail: { tags, summary: "register-b's own health (no account or connection needed); 503 when register-b is not configured" },
    })
    .get('/register-b/branches', async (c) => ({ data: await registerBBranches(scope(c), client()) }), {
      response: { 200: S.branchesResponse },
      detail: { tags, summary: "The register-b account's branches, each with the location mapped to it" },
    })
    .get('/register-b/location-mappings', async (c) => ({ data: await registerBMappings(scope(c)) }), {
      response: { 200: S.mappingsResponse },
      detail: { tags, summary: 'Every location with the register-b branch it maps to (null: unmapped)' },
    })
    .put('/register-b/location-mappings', async (c) => ok(await saveRegisterBMappings(scope(c), client(), c.body.mappings)), {
      // Replaces every location's mapping (those left out are removed): only a caller holding every location.
      transform: [mis, allLocations()],
      body: S.mappingsBody,
      response: { 200: S.mappingsWriteResponse },
      detail: {
        tags,
        summary: 'Replace the location <-> branch mappings (all or nothing); permission MANAGE_INTEGRATION_SETTINGS at every location',
        description: "Another merchant's location: 404. 422 on `mappings.N.branch_id` for a branch register-b does not know or one mapped twice, on `mappings.N.location_id` for a location listed twice.",
      },
    })
    .get('/register-b/diagnose', async (c) => ({ data: await diagnoseRegisterB(scope(c), client()) }), {
      response: { 200: S.diagnoseResponse },
      detail: { tags, summary: 'Checklist: configured, connected, account reachable, every location mapped, last sync outcome' },
    })
    .get(
      '/register-b/relations',
      async (c) => {
        const r = await listRegisterBRelations(scope(c), client(), { page: c.query.page === undefined ? undefined : Number(c.query.page), limit: c.query.limit === undefined ? undefined : Number(c.query.limit) });
        return r;
      },
      {
        query: S.relationsQuery,
        response: { 200: S.relationsResponse },
        detail: { tags, summary: 'register-b relations (customers), one page (query page, limit default 50 clamped to 1-200), each with its linked customer' },
      },
    )
    .post('/register-b/start-sync', async (c) => ok(await startRegisterBSync(scope(c), client())), {
      transform: mis,
      response: { 200: S.startSyncResponse },
      detail: { tags, summary: "Pull the mapped branches' register-b products into the catalog now; permission MANAGE_INTEGRATION_SETTINGS" },
    })
    .post('/register-b/locations/sync', async (c) => ok(await syncRegisterBLocations(scope(c), client())), {
      transform: mis,
      response: { 200: S.locationsSyncResponse },
      detail: { tags, summary: 'Read the register-b branches again; mappings to vanished branches are dropped; permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .post('/register-b/probe-capabilities', async (c) => ok(await probeRegisterBCapabilities(scope(c), client())), {
      transform: mis,
      response: { 200: S.settingsWriteResponse },
      detail: { tags, summary: 'Ask register-b which features the account has (live_inventory, relations, pricing) and store them; permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .post('/register-b/toggle-live-inventory', async (c) => ok(await toggleRegisterBLiveInventory(scope(c), c.body.enabled)), {
      // A setting of the merchant's connection, read for every location's stock.
      transform: [mis, allLocations()],
      body: S.toggleLiveInventoryBody,
      response: { 200: S.settingsWriteResponse },
      detail: { tags, summary: 'Turn live inventory on (422 unless the probed capabilities include it) or off; permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .post('/register-b/inventory/live-refresh', async (c) => ok(await refreshRegisterBInventory(scope(c), client())), {
      response: { 200: S.liveRefreshResponse },
      detail: { tags, summary: "register-b stock of the mapped branches -> our stock of the synced items (422 `live_inventory_off` while live inventory is off)" },
    })
    .post('/register-b/relations/sync', async (c) => ok(await syncRegisterBRelations(scope(c), client())), {
      response: { 200: S.relationsSyncResponse },
      detail: { tags, summary: 'register-b relations -> our customers, linked by relation number (idempotent)' },
    })
    .post('/register-b/relations/link', async (c) => ok(await linkRegisterBRelation(scope(c), client(), c.body)), {
      body: S.relationLinkBody,
      response: { 200: S.relationLinkResponse },
      detail: { tags, summary: 'Link one of our customers to a register-b relation number (404 for a customer that is not the merchant\'s)' },
    })
    .post('/register-b/relations/create', async (c) => ok(await createRegisterBRelation(scope(c), client(), c.body)), {
      body: S.relationCreateBody,
      response: { 200: S.relationLinkResponse },
      detail: { tags, summary: 'Create the relation at register-b from one of our customers and link it' },
    })
    .post('/register-b/relations/:relationNumber/pricing-check', async (c) => ({ data: await registerBRelationPrices(scope(c), client(), c.params.relationNumber, c.body.item_ids) }), {
      params: S.relationParams,
      body: S.pricingCheckBody,
      response: { 200: S.pricingCheckResponse },
      detail: { tags, summary: "The relation's register-b prices (cents) for the given items" },
    })
    .post('/register-b/pricing/quote', async (c) => ({ data: await quoteRegisterB(scope(c), client(), c.body) }), {
      body: S.quoteBody,
      response: { 200: S.quoteResponse },
      detail: { tags, summary: 'A basket of our items priced by register-b (cents), for an optional relation' },
    });
}
