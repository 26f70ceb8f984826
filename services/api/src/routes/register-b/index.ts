import { Elysia } from 'elysia';
import { errors } from '@pos/kernel';
import { autoSyncStatus, merchantConnection, validateAutoSyncPayload, writeAutoSync } from '@pos/core/integrations/auto-sync';
import { defaultSyncZone } from '@pos/db';
import { logActivity } from '@pos/core/activity/log-activity';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { permission } from '../../plugins/guards.ts';
import type { TenantContext } from '../../middleware/tenant.ts';
import { registerBDisableResponse, registerBSaveBody, registerBSaveResponse, registerBStatusResponse } from './register-b.schemas.ts';

const tags = ['Integration administration'];
const PROVIDER = 'register-b';

/**
 * register-b administration (spec 1 "register-b", merchant level, admin-vendor-override):
 * `POST /back-office/register-b` (MIS; initiate with `account_id`, or save settings, with the auto-sync
 * payload), `GET /status`, `POST /disable` (MIS). The connection is `integration_connections` with
 * `external_ref` the register-b account (the one its webhooks carry).
 */
export function registerBRoutes(deps: ApiDeps) {
  async function state(tenant: TenantContext) {
    const target = await merchantConnection(deps.db, tenant.merchant, PROVIDER);
    if (!target) {
      const zone = await defaultSyncZone(deps.db, { tenantDatabase: tenant.merchant.tenant_database, provider: PROVIDER, locationId: null });
      return { connected: false, status: 'disconnected', account_id: null, connected_at: null, sync_time: null, sync_timezone: zone, enable_auto_sync: false, next_sync_at: null, last_sync: null };
    }
    const ref = await deps.db.selectFrom('integration_connections').select('external_ref').where('id', '=', target.connectionId).executeTakeFirstOrThrow();
    const schedule = await autoSyncStatus(deps.db, target);
    return { connected: target.status === 'active', status: target.status, account_id: ref.external_ref, connected_at: target.connectedAt?.toISOString() ?? null, ...schedule };
  }

  return new Elysia({ name: 'register-b-admin', prefix: '/back-office' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .post(
      '/register-b',
      async ({ tenant, auth, body }) => {
        const { account_id: accountId, ...schedule } = body;
        validateAutoSyncPayload(schedule, { platformA: false });
        const now = deps.clock.now();
        const existing = await merchantConnection(deps.db, tenant.merchant, PROVIDER);
        if (!existing && accountId === undefined) throw errors.field('account_id', 'The account id field is required.');
        if (accountId !== undefined) {
          // One register-b account belongs to one merchant: its webhooks find the tenant by it.
          const owner = await deps.db.selectFrom('integration_connections').select('id').where('provider', '=', PROVIDER).where('external_ref', '=', accountId).executeTakeFirst();
          if (owner && owner.id !== existing?.connectionId) throw errors.conflict('This register-b account is already connected.');
          if (existing) {
            await deps.db.updateTable('integration_connections').set({ external_ref: accountId, status: 'active', connected_at: existing.status === 'active' && owner ? existing.connectedAt : now, updated_at: now }).where('id', '=', existing.connectionId).execute();
          } else {
            const inserted = await deps.db
              .insertInto('integration_connections')
              .values({ id: Bun.randomUUIDv7(), provider: PROVIDER, external_ref: accountId, merchant_id: tenant.merchant.id, status: 'active', settings: JSON.stringify({}), connected_at: now, created_at: now, updated_at: now })
              .onConflict((oc) => oc.constraint('integration_connections_provider_ref').doNothing())
              .returning('id')
              .executeTakeFirst();
            if (!inserted) throw errors.conflict('This register-b account is already connected.');
          }
        }
        const target = (await merchantConnection(deps.db, tenant.merchant, PROVIDER))!;
        if (schedule.sync_time !== undefined || schedule.sync_timezone !== undefined) await writeAutoSync(deps.db, target, schedule, now);
        await logActivity(tenant.db, { userId: auth.userId, action: 'updated', subject: 'integration', properties: { provider: PROVIDER } });
        return { status: 'success' as const, data: await state(tenant) };
      },
      {
        beforeHandle: permission('MANAGE_INTEGRATION_SETTINGS'),
        body: registerBSaveBody,
        response: { 200: registerBSaveResponse },
        detail: { tags, summary: 'Initiate register-b (account_id) or save its settings and auto-sync time; permission MANAGE_INTEGRATION_SETTINGS' },
      },
    )
    .get('/register-b/status', async ({ tenant }) => ({ data: await state(tenant) }), {
      response: { 200: registerBStatusResponse },
      detail: { tags, summary: 'register-b connection status and auto-sync schedule (sync_timezone never null)' },
    })
    .post(
      '/register-b/disable',
      async ({ tenant, auth }) => {
        const target = await merchantConnection(deps.db, tenant.merchant, PROVIDER);
        if (!target) throw errors.notFound('integration');
        const now = deps.clock.now();
        // The schedule is kept for a reconnect; the scheduler claims active connections only.
        await deps.db.transaction().execute(async (trx) => {
          await trx
            .updateTable('integration_connections')
            .set({ status: 'disabled', access_token_encrypted: null, refresh_token_encrypted: null, token_expires_at: null, updated_at: now })
            .where('id', '=', target.connectionId)
            .execute();
          await trx.updateTable('integration_auto_syncs').set({ next_run_at: null, updated_at: now }).where('connection_id', '=', target.connectionId).execute();
        });
        await logActivity(tenant.db, { userId: auth.userId, action: 'disabled', subject: 'integration', properties: { provider: PROVIDER } });
        return { status: 'success' as const };
      },
      {
        beforeHandle: permission('MANAGE_INTEGRATION_SETTINGS'),
        response: { 200: registerBDisableResponse },
        detail: { tags, summary: 'Disable the register-b integration; permission MANAGE_INTEGRATION_SETTINGS' },
      },
    );
}
