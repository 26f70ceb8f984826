import { Elysia } from 'elysia';
import { errors } from '@pos/kernel';
import { RegisterDClient } from '@pos/providers/register-d/register-d-client';
import type { TenantContext } from '@pos/core/auth/tenant-context';
import {
  disconnectRegisterD,
  registerDStatus,
  registerDVendors,
  requireRegisterDVendor,
  saveRegisterD,
  syncRegisterDMenu,
  testRegisterD,
  type RegisterDScope,
} from '@pos/core/integrations/register-d-admin';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { locationGrant, locationOwner, permission } from '../../plugins/guards.ts';
import * as S from './register-d.schemas.ts';

const tags = ['Integration administration'];
const MIS = 'MANAGE_INTEGRATION_SETTINGS';

/**
 * register-d administration (spec 1 "register-d"): `/back-office/register-d/{provider}/{locationId}`
 * with admin-vendor-override and location-owner; `{provider}` names the register vendor behind the
 * transport (an unknown one is a 404). GET status, POST initiate/save with the auto-sync payload (MIS),
 * POST sync-menu, GET test, DELETE disconnect (MIS). No separate auto-sync-schedule route.
 */
export function registerDRoutes(deps: ApiDeps) {
  const vendors = registerDVendors(deps.config.REGISTER_D_VENDORS);
  let client: RegisterDClient | undefined;
  const registerD = (): RegisterDClient => {
    if (!deps.config.REGISTER_D_API_URL || !deps.config.REGISTER_D_API_TOKEN) throw errors.unavailable('register-d is not configured.');
    return (client ??= new RegisterDClient({ baseUrl: deps.config.REGISTER_D_API_URL, apiToken: deps.config.REGISTER_D_API_TOKEN }));
  };
  const scope = (tenant: TenantContext, p: { provider: string; locationId: string }): RegisterDScope => ({ merchant: tenant.merchant, locationId: p.locationId, vendor: p.provider });
  // Location first (another merchant's location is a 404 whatever the vendor), then the vendor word.
  const knownVendor = () => (ctx: { params: { provider: string } }) => {
    requireRegisterDVendor(vendors, ctx.params.provider);
  };
  // No permission, but only at a location of the caller's grant (spec 1 section 5 item 8).
  const open = [locationOwner(), locationGrant(), knownVendor()];
  const mis = [...open, permission(MIS, 'locationId')];
  const now = () => deps.clock.now();

  return new Elysia({ name: 'register-d-admin', prefix: '/back-office/register-d' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get('/:provider/:locationId', async ({ tenant, params }) => ({ data: await registerDStatus(deps.db, scope(tenant, params)) }), {
      transform: open,
      params: S.params,
      query: S.vendorQuery,
      response: { 200: S.statusResponse },
      detail: { tags, summary: 'register-d status of a vendor at a location, with the auto-sync schedule (sync_timezone never null)' },
    })
    .post('/:provider/:locationId', async ({ tenant, params, body }) => ({ status: 'success' as const, data: await saveRegisterD(deps.db, registerD, scope(tenant, params), body, now()) }), {
      transform: mis,
      params: S.params,
      query: S.vendorQuery,
      body: S.saveBody,
      response: { 200: S.writeResponse },
      detail: { tags, summary: "Initiate register-d with the vendor's site id, or save its settings and auto-sync time; permission MANAGE_INTEGRATION_SETTINGS" },
    })
    .delete('/:provider/:locationId', async ({ tenant, params }) => ({ status: 'success' as const, data: await disconnectRegisterD(deps.db, registerD, scope(tenant, params), now()) }), {
      transform: mis,
      params: S.params,
      query: S.vendorQuery,
      response: { 200: S.writeResponse },
      detail: { tags, summary: 'Disconnect register-d for a vendor at a location; permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .post(
      '/:provider/:locationId/sync-menu',
      async ({ tenant, params }) => ({ status: 'success' as const, ...(await syncRegisterDMenu(deps.db, tenant.db, registerD(), scope(tenant, params), now())) }),
      {
        transform: open,
        params: S.params,
        query: S.vendorQuery,
        response: { 200: S.syncMenuResponse },
        detail: { tags, summary: "Push the location's menu to the vendor through the register-d transport" },
      },
    )
    .get('/:provider/:locationId/test', async ({ tenant, params }) => ({ data: await testRegisterD(deps.db, registerD(), scope(tenant, params)) }), {
      transform: open,
      params: S.params,
      query: S.vendorQuery,
      response: { 200: S.testResponse },
      detail: { tags, summary: 'Test the connection: a round trip through the register-d transport to the site' },
    });
}
