import { Elysia } from 'elysia';
import { errors } from '@pos/kernel';
import { merchantConnection } from '@pos/core/integrations/auto-sync';
import { logActivity } from '@pos/core/activity/log-activity';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { permission } from '../../plugins/guards.ts';
import type { TenantContext } from '@pos/core/auth/tenant-context';
import { mappingBody, mappingDeleteResponse, mappingListResponse, mappingParams, mappingResponse } from './register-c.schemas.ts';
import { isUuid } from '@pos/domain/ids';

const tags = ['Integration administration'];
const PROVIDER = 'register-c';
const MIS = 'MANAGE_INTEGRATION_SETTINGS';

type Row = { location_id: string; register_c_location_id: string; status: string; updated_at: Date | string };
const view = (r: Row) => ({
  upvendo_location_id: r.location_id,
  register_c_location_id: r.register_c_location_id,
  status: r.status as 'active' | 'paused',
  updated_at: new Date(r.updated_at).toISOString(),
});

/**
 * register-c location mappings (spec 1 "register-c", merchant level, no location-owner):
 * `GET /back-office/register-c/mappings`, `PUT` / `DELETE /mappings/{upvendoLocationId}` (create or
 * update, remove) and `POST .../pause`, `.../resume`, all writes MIS. A location of another merchant
 * (or none) is a 404; without a register-c connection the writes are a 404 on the integration.
 */
export function registerCRoutes(deps: ApiDeps) {
  async function location(tenant: TenantContext, id: string) {
    if (!isUuid(id)) throw errors.notFound('location');
    const loc = await tenant.db.selectFrom('locations').select('id').where('id', '=', id).executeTakeFirst();
    if (!loc) throw errors.notFound('location');
    return loc.id;
  }
  async function connection(tenant: TenantContext) {
    const c = await merchantConnection(deps.db, tenant.merchant, PROVIDER);
    if (!c) throw errors.notFound('integration');
    return c;
  }
  const mapped = (tenant: TenantContext, locationId: string) =>
    deps.db.selectFrom('register_c_mappings').selectAll().where('merchant_id', '=', tenant.merchant.id).where('location_id', '=', locationId).executeTakeFirst();

  async function setStatus(tenant: TenantContext, userId: string, id: string, status: 'active' | 'paused') {
    const locationId = await location(tenant, id);
    const row = await deps.db
      .updateTable('register_c_mappings')
      .set({ status, updated_at: deps.clock.now() })
      .where('merchant_id', '=', tenant.merchant.id)
      .where('location_id', '=', locationId)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw errors.notFound('mapping');
    await logActivity(tenant.db, { userId, action: status === 'paused' ? 'paused' : 'resumed', subject: 'register_c_mapping', properties: { location_id: locationId } });
    return { status: 'success' as const, data: view(row) };
  }

  return new Elysia({ name: 'register-c-admin', prefix: '/back-office/register-c' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get(
      '/mappings',
      async ({ tenant }) => {
        const rows = await deps.db.selectFrom('register_c_mappings').selectAll().where('merchant_id', '=', tenant.merchant.id).orderBy('created_at').orderBy('location_id').execute();
        return { data: rows.map(view) };
      },
      { response: { 200: mappingListResponse }, detail: { tags, summary: 'register-c location mappings' } },
    )
    .put(
      '/mappings/:upvendoLocationId',
      async ({ tenant, auth, params, body }) => {
        const locationId = await location(tenant, params.upvendoLocationId);
        const conn = await connection(tenant);
        const now = deps.clock.now();
        const taken = await deps.db
          .selectFrom('register_c_mappings')
          .select('location_id')
          .where('connection_id', '=', conn.connectionId)
          .where('register_c_location_id', '=', body.register_c_location_id)
          .where('location_id', '!=', locationId)
          .executeTakeFirst();
        if (taken) throw errors.field('register_c_location_id', 'The register-c location is already mapped to another location.');
        const row = await deps.db
          .insertInto('register_c_mappings')
          .values({ merchant_id: tenant.merchant.id, location_id: locationId, connection_id: conn.connectionId, register_c_location_id: body.register_c_location_id, created_at: now, updated_at: now })
          .onConflict((oc) => oc.columns(['merchant_id', 'location_id']).doUpdateSet({ connection_id: conn.connectionId, register_c_location_id: body.register_c_location_id, updated_at: now }))
          .returningAll()
          .executeTakeFirstOrThrow();
        await logActivity(tenant.db, { userId: auth.userId, action: 'updated', subject: 'register_c_mapping', properties: { location_id: locationId, register_c_location_id: body.register_c_location_id } });
        return { status: 'success' as const, data: view(row) };
      },
      {
        beforeHandle: permission(MIS),
        params: mappingParams,
        body: mappingBody,
        response: { 200: mappingResponse },
        detail: { tags, summary: 'Create or update a register-c location mapping; permission MANAGE_INTEGRATION_SETTINGS' },
      },
    )
    .delete(
      '/mappings/:upvendoLocationId',
      async ({ tenant, auth, params }) => {
        const locationId = await location(tenant, params.upvendoLocationId);
        if (!(await mapped(tenant, locationId))) throw errors.notFound('mapping');
        await deps.db.deleteFrom('register_c_mappings').where('merchant_id', '=', tenant.merchant.id).where('location_id', '=', locationId).execute();
        await logActivity(tenant.db, { userId: auth.userId, action: 'deleted', subject: 'register_c_mapping', properties: { location_id: locationId } });
        return { status: 'success' as const };
      },
      {
        beforeHandle: permission(MIS),
        params: mappingParams,
        response: { 200: mappingDeleteResponse },
        detail: { tags, summary: 'Remove a register-c location mapping; permission MANAGE_INTEGRATION_SETTINGS' },
      },
    )
    .post('/mappings/:upvendoLocationId/pause', ({ tenant, auth, params }) => setStatus(tenant, auth.userId, params.upvendoLocationId, 'paused'), {
      beforeHandle: permission(MIS),
      params: mappingParams,
      response: { 200: mappingResponse },
      detail: { tags, summary: 'Pause a register-c location mapping; permission MANAGE_INTEGRATION_SETTINGS' },
    })
    .post('/mappings/:upvendoLocationId/resume', ({ tenant, auth, params }) => setStatus(tenant, auth.userId, params.upvendoLocationId, 'active'), {
      beforeHandle: permission(MIS),
      params: mappingParams,
      response: { 200: mappingResponse },
      detail: { tags, summary: 'Resume a paused register-c location mapping; permission MANAGE_INTEGRATION_SETTINGS' },
    });
}
