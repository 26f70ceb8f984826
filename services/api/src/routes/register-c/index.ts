import { Elysia } from 'elysia';
import type { BackofficePrincipal } from '@pos/core/auth/principal';
import type { TenantContext } from '@pos/core/auth/tenant-context';
import type { MerchantIntegrationScope } from '@pos/core/integrations/merchant-integrations';
import { deleteRegisterCMapping, listRegisterCMappings, saveRegisterCMapping, setRegisterCMappingStatus } from '@pos/core/integrations/register-c-mappings';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { permission } from '../../plugins/guards.ts';
import { mappingBody, mappingDeleteResponse, mappingListResponse, mappingParams, mappingResponse } from './register-c.schemas.ts';

const tags = ['Integration administration'];
const MIS = 'MANAGE_INTEGRATION_SETTINGS';

/**
 * register-c location mappings (spec 1 "register-c", merchant level, no location-owner):
 * `GET /back-office/register-c/mappings`, `PUT` / `DELETE /mappings/{upvendoLocationId}` (create or
 * update, remove) and `POST .../pause`, `.../resume`, all writes MIS. A location of another merchant
 * (or none) is a 404; without a register-c connection the writes are a 404 on the integration.
 */
export function registerCRoutes(deps: ApiDeps) {
  const scope = (c: { tenant: TenantContext; auth: BackofficePrincipal }): MerchantIntegrationScope => ({ db: deps.db, tdb: c.tenant.db, merchant: c.tenant.merchant, userId: c.auth.userId, now: deps.clock.now() });
  return new Elysia({ name: 'register-c-admin', prefix: '/back-office/register-c' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get('/mappings', async (c) => ({ data: await listRegisterCMappings(scope(c)) }), { response: { 200: mappingListResponse }, detail: { tags, summary: 'register-c location mappings' } })
    .put('/mappings/:upvendoLocationId', async (c) => ({ status: 'success' as const, data: await saveRegisterCMapping(scope(c), c.params.upvendoLocationId, c.body.register_c_location_id) }), {
      beforeHandle: permission(MIS),
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
        beforeHandle: permission(MIS),
        params: mappingParams,
        response: { 200: mappingDeleteResponse },
        detail: { tags, summary: 'Remove a register-c location mapping; permission MANAGE_INTEGRATION_SETTINGS' },
      },
    )
    .post('/mappings/:upvendoLocationId/pause', async (c) => ({ status: 'success' as const, data: await setRegisterCMappingStatus(scope(c), c.params.upvendoLocationId, 'paused') }), {
      beforeHandle: permission(MIS),
      params: mappingParams,
      response: { 200: mappingResponse },
      detail: { tags, summary: 'Pause a register-c location mapping; permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .post('/mappings/:upvendoLocationId/resume', async (c) => ({ status: 'success' as const, data: await setRegisterCMappingStatus(scope(c), c.params.upvendoLocationId, 'active') }), {
      beforeHandle: permission(MIS),
      params: mappingParams,
      response: { 200: mappingResponse },
      detail: { tags, summary: 'Resume a paused register-c location mapping; permission MANAGE_INTEGRATION_SETTINGS' },
    });
}
