import { Elysia } from 'elysia';
import type { BackofficePrincipal } from '@pos/core/auth/principal';
import type { TenantContext } from '@pos/core/auth/tenant-context';
import { disableMerchantIntegration, merchantIntegrationStatus, saveAutoSyncSchedule, type MerchantIntegrationScope } from '@pos/core/integrations/merchant-integrations';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { allLocations, permission } from '../../plugins/guards.ts';
import { autoSyncWriteResponse, platformASyncTimeBody, registerCDisableResponse, registerCStatusResponse, registerCSyncTimeBody } from './integration-auto-sync.schemas.ts';

const tags = ['Integration administration'];

/**
 * The merchant-level auto-sync schedule routes (spec 1 "Auto-sync schedule payload"):
 * `POST /back-office/platform-a/sync-time` (sync_time required) and `PUT /back-office/register-c/sync-time`.
 * Both carry admin-vendor-override and MANAGE_INTEGRATION_SETTINGS; a merchant without the provider's
 * connection gets a 404. Also register-c's `GET /status` (the schedule with `sync_timezone` never null,
 * rule 6) and `POST /disable`.
 */
export function integrationAutoSyncRoutes(deps: ApiDeps) {
  const scope = (c: { tenant: TenantContext; auth: BackofficePrincipal }): MerchantIntegrationScope => ({ db: deps.db, tdb: c.tenant.db, merchant: c.tenant.merchant, userId: c.auth.userId, now: deps.clock.now() });
  return new Elysia({ name: 'integration-auto-sync', prefix: '/back-office' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .post('/platform-a/sync-time', async (c) => ({ status: 'success' as const, data: await saveAutoSyncSchedule(scope(c), 'platform-a', c.body, { platformA: true }) }), {
      // The merchant's platform-a schedule pushes every location's catalog.
      transform: [permission('MANAGE_INTEGRATION_SETTINGS'), allLocations()],
      body: platformASyncTimeBody,
      response: { 200: autoSyncWriteResponse },
      detail: { tags, summary: 'Set the platform-a daily auto-sync time (sync_time required); permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .put('/register-c/sync-time', async (c) => ({ status: 'success' as const, data: await saveAutoSyncSchedule(scope(c), 'register-c', c.body, { platformA: false }) }), {
      // The merchant's one schedule syncs every location.
      transform: [permission('MANAGE_INTEGRATION_SETTINGS'), allLocations()],
      body: registerCSyncTimeBody,
      response: { 200: autoSyncWriteResponse },
      detail: { tags, summary: 'Set or clear the register-c daily auto-sync time; permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .get('/register-c/status', async (c) => ({ data: await merchantIntegrationStatus(scope(c), 'register-c') }), {
      response: { 200: registerCStatusResponse },
      detail: { tags, summary: 'register-c connection status and auto-sync schedule (sync_timezone never null)' },
    })
    .post(
      '/register-c/disable',
      async (c) => {
        await disableMerchantIntegration(scope(c), 'register-c');
        return { status: 'success' as const };
      },
      {
        transform: [permission('MANAGE_INTEGRATION_SETTINGS'), allLocations()],
        response: { 200: registerCDisableResponse },
        detail: { tags, summary: 'Disable the register-c integration; permission MANAGE_INTEGRATION_SETTINGS' },
      },
    );
}
