import { Elysia } from 'elysia';
import { errors } from '@pos/kernel';
import { autoSyncStatus, merchantConnection, validateAutoSyncPayload, writeAutoSync, type AutoSyncPayload } from '@pos/core/integrations/auto-sync';
import { defaultSyncZone } from '@pos/db';
import { logActivity } from '@pos/core/activity/log-activity';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { permission } from '../../plugins/guards.ts';
import type { TenantContext } from '../../middleware/tenant.ts';
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
  async function save(tenant: TenantContext, userId: string, provider: string, body: AutoSyncPayload, platformA: boolean) {
    validateAutoSyncPayload(body, { platformA });
    const target = await merchantConnection(deps.db, tenant.merchant, provider);
    if (!target) throw errors.notFound('integration');
    const data = await writeAutoSync(deps.db, target, body, deps.clock.now());
    await logActivity(tenant.db, { userId, action: 'updated', subject: 'integration_auto_sync', properties: { provider, sync_time: data.sync_time, sync_timezone: data.sync_timezone } });
    return { status: 'success' as const, data };
  }

  return new Elysia({ name: 'integration-auto-sync', prefix: '/back-office' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .post('/platform-a/sync-time', ({ tenant, auth, body }) => save(tenant, auth.userId, 'platform-a', body, true), {
      beforeHandle: permission('MANAGE_INTEGRATION_SETTINGS'),
      body: platformASyncTimeBody,
      response: { 200: autoSyncWriteResponse },
      detail: { tags, summary: 'Set the platform-a daily auto-sync time (sync_time required); permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .put('/register-c/sync-time', ({ tenant, auth, body }) => save(tenant, auth.userId, 'register-c', body, false), {
      beforeHandle: permission('MANAGE_INTEGRATION_SETTINGS'),
      body: registerCSyncTimeBody,
      response: { 200: autoSyncWriteResponse },
      detail: { tags, summary: 'Set or clear the register-c daily auto-sync time; permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .get(
      '/register-c/status',
      async ({ tenant }) => {
        const target = await merchantConnection(deps.db, tenant.merchant, 'register-c');
        if (!target) {
          const zone = await defaultSyncZone(deps.db, { tenantDatabase: tenant.merchant.tenant_database, provider: 'register-c', locationId: null });
          return { data: { connected: false, status: 'disconnected', connected_at: null, sync_time: null, sync_timezone: zone, enable_auto_sync: false, next_sync_at: null, last_sync: null } };
        }
        const schedule = await autoSyncStatus(deps.db, target);
        return { data: { connected: target.status === 'active', status: target.status, connected_at: target.connectedAt?.toISOString() ?? null, ...schedule } };
      },
      {
        response: { 200: registerCStatusResponse },
        detail: { tags, summary: 'register-c connection status and auto-sync schedule (sync_timezone never null)' },
      },
    )
    .post(
      '/register-c/disable',
      async ({ tenant, auth }) => {
        const target = await merchantConnection(deps.db, tenant.merchant, 'register-c');
        if (!target) throw errors.notFound('integration');
        const now = deps.clock.now();
        // Disabled: the tokens are dropped; the scheduler claims schedules of active connections only.
        await deps.db.transaction().execute(async (trx) => {
          await trx
            .updateTable('integration_connections')
            .set({ status: 'disabled', access_token_encrypted: null, refresh_token_encrypted: null, token_expires_at: null, updated_at: now })
            .where('id', '=', target.connectionId)
            .execute();
          await trx.updateTable('integration_auto_syncs').set({ next_run_at: null, updated_at: now }).where('connection_id', '=', target.connectionId).execute();
        });
        await logActivity(tenant.db, { userId: auth.userId, action: 'disabled', subject: 'integration', properties: { provider: 'register-c' } });
        return { status: 'success' as const };
      },
      {
        beforeHandle: permission('MANAGE_INTEGRATION_SETTINGS'),
        response: { 200: registerCDisableResponse },
        detail: { tags, summary: 'Disable the register-c integration; permission MANAGE_INTEGRATION_SETTINGS' },
      },
    );
}
