import { Elysia } from 'elysia';
import { deleteMovements, inventoryOverview, recordMovement } from '@pos/core/catalog/inventories';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { catalogScope, doc } from '../catalog/scope.ts';
import * as S from './inventories.schemas.ts';

/** Spec 1 "Content, inventories, tax rates" (inventories part): `/back-office/inventories`, no permission of their own; locations outside the caller's grant are 403. */
export function inventoryRoutes(deps: ApiDeps) {
  const tags = ['Catalog: inventories'];
  return new Elysia({ name: 'catalog-inventories', prefix: '/back-office/inventories' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get('', async (ctx) => inventoryOverview(await catalogScope(deps, ctx), ctx.query), {
      query: S.OverviewQuery,
      response: { 200: S.Overview },
      ...doc(tags, 'Stock overview', null, 'Stock per item and location (granted locations), search on item name, filters location_id, item_id; with both, `history` lists that stock\'s movements.'),
    })
    .post(
      '',
      async (ctx) => {
        ctx.set.status = 201;
        return { data: await recordMovement({ ...(await catalogScope(deps, ctx)), userId: ctx.auth.userId }, ctx.body) };
      },
      {
        body: S.MovementBody,
        response: { 201: S.MovementResponse },
        ...doc(tags, 'Record a stock movement (history entry)', null, 'Unknown or foreign item or location: 422 on the field. Stock never goes below zero unless the item allows it: 422 with reason `insufficient_stock`, nothing written.'),
      },
    )
    .delete('', async (ctx) => ({ status: 'success' as const, deleted: await deleteMovements(await catalogScope(deps, ctx), ctx.body.ids) }), {
      body: S.DeleteBody,
      response: { 200: S.DeleteResponse },
      ...doc(tags, 'Delete history entries', null, 'Their changes are taken back out of the stock. Unknown or foreign ids: 422 on `ids.N`; a removal taking stock below zero: 422 `insufficient_stock`; nothing is deleted then.'),
    });
}
