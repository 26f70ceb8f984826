import { Elysia } from 'elysia';
import { createDrawer } from '@pos/core/pos-admin/create-drawer';
import { listDrawers } from '@pos/core/pos-admin/list-drawers';
import { renameDrawer } from '@pos/core/pos-admin/rename-drawer';
import { retireDrawer } from '@pos/core/pos-admin/retire-drawer';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { locationGate, scopeOf, doc } from '../pos-admin/pos-admin-gates.ts';
import * as P from '../pos-admin/pos-admin.schemas.ts';
import * as S from './pos-admin-drawers.schemas.ts';

/** A location's cash drawers (VIEW_POS_CONFIGURATION to read, MANAGE_POS_CONFIGURATION to write). Auth, type:backoffice and admin-vendor-override on the group; the gates are in pos-admin-gates.ts. */
export function posAdminDrawerRoutes(deps: ApiDeps) {
  const tags = ['Register administration: registers, drawers, fiscal devices'];
  return (
    new Elysia({ name: 'pos-admin-drawers', prefix: '/back-office/pos' })
      .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
      .get('/:locationId/drawers', async (ctx) => ({ data: await listDrawers(scopeOf(deps, ctx), ctx.params.locationId, { includeRetired: ctx.query.include_retired }) }), {
        params: P.LocationParams,
        query: P.IncludeRetiredQuery,
        response: { 200: S.DrawerList },
        transform: locationGate('VIEW_POS_CONFIGURATION'),
        ...doc(tags, 'List drawers', 'Live drawers of the location (retired ones too with `include_retired=true`), each with its frozen `fiscal_identity`.'),
      })
      .post(
        '/:locationId/drawers',
        async (ctx) => {
          const data = await createDrawer(scopeOf(deps, ctx), ctx.params.locationId, ctx.body);
          ctx.set.status = 201;
          return { data };
        },
        {
          params: P.LocationParams,
          body: S.CreateDrawerBody,
          query: P.VendorQuery,
          response: { 201: S.DrawerResponse },
          transform: locationGate('MANAGE_POS_CONFIGURATION'),
          ...doc(tags, 'Create a drawer', 'Body `{name, kind (physical, virtual)}`; `fiscal_identity` `{drawerId, drawerName}` is frozen now.'),
        },
      )
      .put('/:locationId/drawers/:drawerId', async (ctx) => ({ data: await renameDrawer(scopeOf(deps, ctx), ctx.params.locationId, ctx.params.drawerId, ctx.body.name) }), {
        params: S.DrawerParams,
        body: S.RenameDrawerBody,
        query: P.VendorQuery,
        response: { 200: S.DrawerResponse },
        transform: locationGate('MANAGE_POS_CONFIGURATION'),
        ...doc(tags, 'Rename a drawer', 'Body `{name}`: changes `name`, never `fiscal_identity`. 409 for a retired drawer.'),
      })
      .post('/:locationId/drawers/:drawerId/retire', async (ctx) => ({ data: await retireDrawer(scopeOf(deps, ctx), ctx.params.locationId, ctx.params.drawerId) }), {
        params: S.DrawerParams,
        query: P.VendorQuery,
        response: { 200: S.DrawerResponse },
        transform: locationGate('MANAGE_POS_CONFIGURATION'),
        ...doc(tags, 'Retire a drawer', 'Sets `retired_at` and unbinds it from live registers; 409 (reason `till_not_closed`) while a till on it is not closed.'),
      })
  );
}
