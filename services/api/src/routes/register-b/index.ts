import { Elysia } from 'elysia';
import type { BackofficePrincipal } from '@pos/core/auth/principal';
import type { TenantContext } from '@pos/core/auth/tenant-context';
import { disableMerchantIntegration, type MerchantIntegrationScope } from '@pos/core/integrations/merchant-integrations';
import { REGISTER_B, registerBStatus, saveRegisterB } from '@pos/core/integrations/register-b-admin';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { permission } from '../../plugins/guards.ts';
import { registerBDisableResponse, registerBSaveBody, registerBSaveResponse, registerBStatusResponse } from './register-b.schemas.ts';

const tags = ['Integration administration'];

/**
 * register-b administration (spec 1 "register-b", merchant level, admin-vendor-override):
 * `POST /back-office/register-b` (MIS; initiate with `account_id`, or save settings, with the auto-sync
 * payload), `GET /status`, `POST /disable` (MIS). The connection is `integration_connections` with
 * `external_ref` the register-b account (the one its webhooks carry).
 */
export function registerBRoutes(deps: ApiDeps) {
  const scope = (c: { tenant: TenantContext; auth: BackofficePrincipal }): MerchantIntegrationScope => ({ db: deps.db, tdb: c.tenant.db, merchant: c.tenant.merchant, userId: c.auth.userId, now: deps.clock.now() });
  return new Elysia({ name: 'register-b-admin', prefix: '/back-office' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .post('/register-b', async (c) => ({ status: 'success' as const, data: await saveRegisterB(scope(c), c.body) }), {
      beforeHandle: permission('MANAGE_INTEGRATION_SETTINGS'),
      body: registerBSaveBody,
      response: { 200: registerBSaveResponse },
      detail: { tags, summary: 'Initiate register-b (account_id) or save its settings and auto-sync time; permission MANAGE_INTEGRATION_SETTINGS' },
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
        beforeHandle: permission('MANAGE_INTEGRATION_SETTINGS'),
        response: { 200: registerBDisableResponse },
        detail: { tags, summary: 'Disable the register-b integration; permission MANAGE_INTEGRATION_SETTINGS' },
      },
    );
}
