import { Elysia } from 'elysia';
import { createLayout, deleteLayout, getLayout, listLayouts, updateLayout } from '@pos/core/pos-admin/pos-layouts';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { locationGate, scopeOf, doc } from '../pos-admin/pos-admin-gates.ts';
import * as P from '../pos-admin/pos-admin.schemas.ts';
import * as S from './pos-admin-layouts.schemas.ts';

const BODY =
  'Body `{name, is_default?, columns, rows, pages: [{name, tiles: [{row, column, width?, height?, item_id | category_id, label?, color?}]}]}`: a grid of up to 12 x 12 cells, 1 to 20 pages. ' +
  'A tile (width and height default to 1) must fit inside the grid, may not cover a cell of another tile of its page, and shows exactly one item or category of the catalog (422 on `pages.P.tiles.T`); ' +
  'deleting that item or category removes the tile. Names are unique per location (422 on `name`); making a layout the default takes the flag from the one before.';

/** A location's register screen layouts (spec 2: the `/pos/{locationId}/layouts` prefix, MANAGE_POS_LAYOUTS on every route). Auth, type:backoffice and admin-vendor-override on the group; the gates are in pos-admin-gates.ts. */
export function posAdminLayoutRoutes(deps: ApiDeps) {
  const tags = ['Register administration: screen layouts'];
  const gate = locationGate('MANAGE_POS_LAYOUTS');
  return (
    new Elysia({ name: 'pos-admin-layouts', prefix: '/back-office/pos' })
      .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
      .get('/:locationId/layouts', async (ctx) => ({ data: await listLayouts(scopeOf(deps, ctx), ctx.params.locationId) }), {
        params: P.LocationParams,
        query: P.VendorQuery,
        response: { 200: S.LayoutList },
        transform: gate,
        ...doc(tags, 'List screen layouts', 'The location\'s register screen layouts with their pages and tiles, the default first, then by name.'),
      })
      .post(
        '/:locationId/layouts',
        async (ctx) => {
          const data = await createLayout(scopeOf(deps, ctx), ctx.params.locationId, ctx.body);
          ctx.set.status = 201;
          return { data };
        },
        {
          params: P.LocationParams,
          body: S.LayoutBody,
          query: P.VendorQuery,
          response: { 201: S.LayoutResponse },
          transform: gate,
          ...doc(tags, 'Create a screen layout', `${BODY} The location's first layout is its default unless \`is_default\` is false. A location holds at most 20 layouts (422 \`layout_limit\`).`),
        },
      )
      .get('/:locationId/layouts/:layoutId', async (ctx) => ({ data: await getLayout(scopeOf(deps, ctx), ctx.params.locationId, ctx.params.layoutId) }), {
        params: S.LayoutParams,
        query: P.VendorQuery,
        response: { 200: S.LayoutResponse },
        transform: gate,
        ...doc(tags, 'Show a screen layout', 'One layout of the location; another location\'s or merchant\'s is 404.'),
      })
      .put('/:locationId/layouts/:layoutId', async (ctx) => ({ data: await updateLayout(scopeOf(deps, ctx), ctx.params.locationId, ctx.params.layoutId, ctx.body) }), {
        params: S.LayoutParams,
        body: S.LayoutBody,
        query: P.VendorQuery,
        response: { 200: S.LayoutResponse },
        transform: gate,
        ...doc(tags, 'Replace a screen layout', `${BODY} The whole layout is replaced; \`is_default\` absent leaves the flag as it is.`),
      })
      .delete(
        '/:locationId/layouts/:layoutId',
        async (ctx) => {
          await deleteLayout(scopeOf(deps, ctx), ctx.params.locationId, ctx.params.layoutId);
          return { status: 'success' as const };
        },
        {
          params: S.LayoutParams,
          query: P.VendorQuery,
          response: { 200: P.Success },
          transform: gate,
          ...doc(tags, 'Delete a screen layout', 'Removes it with its tiles; deleting the default leaves the location without one until another is made the default.'),
        },
      )
  );
}
