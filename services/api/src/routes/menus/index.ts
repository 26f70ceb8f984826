import { Elysia } from 'elysia';
import * as menus from '@pos/core/catalog/menus';
import type { ApiDeps } from '../../context.ts';
import { secured } from '../../plugins/secured.ts';
import { permission } from '../../plugins/guards.ts';
import { catalogScope, doc } from '../catalog/scope.ts';
import * as S from './menus.schemas.ts';

const ok = { status: 'success' as const };

/**
 * Spec 1 "Menus" and section 3 (menu states), under `/back-office`. State refusals are 409 (or 422
 * `menu_empty` on publish) with a stable `reason` (docs/decisions.md). A menu of a location outside the
 * caller's grant is 403; another merchant's is 404.
 */
export function menuRoutes(deps: ApiDeps) {
  const tags = ['Catalog: menus'];
  const state = (summary: string, description: string) => ({ params: S.IdParams, response: { 200: S.MenuResponse }, transform: [permission('EDIT_MENUS')], ...doc(tags, summary, 'EDIT_MENUS', description) });
  return new Elysia({ name: 'catalog-menus', prefix: '/back-office' })
    .use(secured(deps, { types: ['backoffice'], vendorOverride: true }))
    .get('/menu-options', async (ctx) => ({ data: await menus.menuOptions(await catalogScope(deps, ctx)) }), {
      response: { 200: S.MenuOptions },
      ...doc(tags, 'Menu select options', null, 'Menus that are not archived, of granted locations.'),
    })
    .get('/menus', async (ctx) => ({ data: await menus.listMenus(await catalogScope(deps, ctx), ctx.query) }), {
      query: S.MenuListQuery,
      response: { 200: S.MenuList },
      transform: [permission('VIEW_MENUS')],
      ...doc(tags, 'Menus', 'VIEW_MENUS', 'Of the caller\'s granted locations; optional location_id, status.'),
    })
    .post(
      '/menus',
      async (ctx) => {
        ctx.set.status = 201;
        return { data: await menus.createMenu(await catalogScope(deps, ctx), ctx.body) };
      },
      { body: S.CreateMenuBody, response: { 201: S.MenuResponse }, transform: [permission('CREATE_MENUS')], ...doc(tags, 'Create a menu (draft)', 'CREATE_MENUS', 'For one location of this merchant (422 on `location_id` otherwise).') },
    )
    .post('/menus/duplicate/:id', async (ctx) => ({ data: await menus.duplicateMenu(await catalogScope(deps, ctx), ctx.params.id) }), {
      params: S.IdParams,
      response: { 200: S.MenuResponse },
      transform: [permission('CREATE_MENUS')],
      ...doc(tags, 'Duplicate a menu', 'CREATE_MENUS', 'A draft copy named `<name> (copy)` with the same display groups, items and pending draft.'),
    })
    .post('/menus/draft/:id', async (ctx) => ({ data: await menus.draftMenu(await catalogScope(deps, ctx), ctx.params.id) }), state('Move a menu back to draft', 'From published (it leaves the channels) or archived; a draft is 409 `menu_already_draft`.'))
    .post('/menus/archive/:id', async (ctx) => ({ data: await menus.archiveMenu(await catalogScope(deps, ctx), ctx.params.id) }), state('Archive a menu', 'From draft or published (it leaves the channels); already archived is 409 `menu_already_archived`.'))
    .post(
      '/menus/publish/:id',
      async (ctx) => ({ data: await menus.publishMenu(await catalogScope(deps, ctx), ctx.params.id) }),
      state(
        'Publish a menu',
        'One transaction: applies the pending draft, makes the menu its location\'s only published menu (a previously published one returns to draft) and rewrites the published catalog the channels read. Archived: 409 `menu_archived`; no items: 422 `menu_empty`. Republishing a published menu applies its draft.',
      ),
    )
    .get('/menus/display-group-items/:id', async (ctx) => ({ data: await menus.getDisplayGroupItems(await catalogScope(deps, ctx), ctx.params.id) }), {
      params: S.IdParams,
      response: { 200: S.GroupItemsResponse },
      transform: [permission('VIEW_MENUS')],
      ...doc(tags, 'Display groups of a menu with their items, and the pending draft', 'VIEW_MENUS'),
    })
    .post('/menus/display-group-items/:id', async (ctx) => ({ data: await menus.saveDisplayGroupItems(await catalogScope(deps, ctx), ctx.params.id, ctx.body) }), {
      params: S.IdParams,
      body: S.GroupItemsBody,
      response: { 200: S.GroupItemsResponse },
      transform: [permission('EDIT_MENUS')],
      ...doc(tags, 'Save display-group items', 'EDIT_MENUS', 'Replaces the items of each listed group now (live on the channels when the menu is published). A group of another menu or merchant is a 422 on `groups.N.id`; an unknown item on `groups.N.item_ids.M`.'),
    })
    .post('/menus/display-group-items/:id/draft', async (ctx) => ({ data: await menus.saveDisplayGroupItemsDraft(await catalogScope(deps, ctx), ctx.params.id, ctx.body) }), {
      params: S.IdParams,
      body: S.GroupItemsBody,
      response: { 200: S.GroupItemsResponse },
      transform: [permission('EDIT_MENUS')],
      ...doc(tags, 'Save display-group items as a draft', 'EDIT_MENUS', 'Kept aside (merged per group into the pending draft) until publish applies it or discard drops it.'),
    })
    .post('/menus/display-group-items/:id/discard', async (ctx) => ({ data: await menus.discardDisplayGroupItemsDraft(await catalogScope(deps, ctx), ctx.params.id) }), {
      params: S.IdParams,
      response: { 200: S.GroupItemsResponse },
      transform: [permission('EDIT_MENUS')],
      ...doc(tags, 'Discard the display-group draft', 'EDIT_MENUS', 'No draft: 409 `menu_no_draft`.'),
    })
    .delete(
      '/menus/display-groups/:id',
      async (ctx) => {
        await menus.deleteDisplayGroup(await catalogScope(deps, ctx), ctx.params.id);
        return ok;
      },
      { params: S.IdParams, response: { 200: S.Success }, transform: [permission('EDIT_MENUS')], ...doc(tags, 'Delete a display group of a menu', 'EDIT_MENUS') },
    )
    .post('/menus/move-item-to-other-group/:id', async (ctx) => ({ data: await menus.moveItemToOtherGroup(await catalogScope(deps, ctx), ctx.params.id, ctx.body) }), {
      params: S.IdParams,
      body: S.MoveItemBody,
      response: { 200: S.DisplayGroupResponse },
      transform: [permission('EDIT_MENUS')],
      ...doc(tags, 'Move an item to another display group of the same menu', 'EDIT_MENUS', '`{id}` is the item. It leaves `from_display_group_id` and lands in `to_display_group_id` at `position` (default last). Answers the target group.'),
    })
    .post('/menus/add-item-to-groups/:itemId', async (ctx) => ({ data: await menus.addItemToGroups(await catalogScope(deps, ctx), ctx.params.itemId, ctx.body) }), {
      params: S.ItemIdParams,
      body: S.AddItemBody,
      response: { 200: S.AddItemResponse },
      transform: [permission('EDIT_MENUS')],
      ...doc(tags, 'Add an item to display groups', 'EDIT_MENUS', 'Appends the item to each group that does not hold it yet; it stays in its current groups. Answers every group holding it.'),
    })
    .get('/menus/:id', async (ctx) => ({ data: await menus.getMenu(await catalogScope(deps, ctx), ctx.params.id) }), {
      params: S.IdParams,
      response: { 200: S.MenuResponse },
      transform: [permission('VIEW_MENUS')],
      ...doc(tags, 'Show a menu with its display groups', 'VIEW_MENUS'),
    })
    .put('/menus/:id', async (ctx) => ({ data: await menus.updateMenu(await catalogScope(deps, ctx), ctx.params.id, ctx.body) }), {
      params: S.IdParams,
      body: S.UpdateMenuBody,
      response: { 200: S.MenuResponse },
      transform: [permission('EDIT_MENUS')],
      ...doc(tags, 'Rename a menu or change its channels', 'EDIT_MENUS', 'Archived: 409 `menu_archived`.'),
    })
    .delete(
      '/menus/:id',
      async (ctx) => {
        await menus.deleteMenu(await catalogScope(deps, ctx), ctx.params.id);
        return ok;
      },
      { params: S.IdParams, response: { 200: S.Success }, transform: [permission('DELETE_MENUS')], ...doc(tags, 'Delete a menu', 'DELETE_MENUS', 'A published menu is 409 `menu_published`.') },
    );
}
